import type { Command } from 'commander';
import type { EffectEntry, EffectLedger } from '../../client/effects';
import { action, print, settings, withClient } from '../support';
import { alignColumns } from '../ui/table';

/** `waveloop effects`: what a run changed outside itself (docs/effects.md#the-effect-ledger). */

/** Adds `waveloop effects`. */
export function register(program: Command): void {
  program
    .command('effects')
    .argument('<id>', 'workflow id of an agent run or a goal tree')
    .option('--json', 'print JSON')
    .description(
      'list what a run changed outside itself: each call of a tool that is not read-only that ran, with its arguments, result and who approved it',
    )
    .action(action((id: string, options: { json?: boolean }) => effectsCommand(id, options)));
}

/** The longest argument list or result a line shows; `--json` has all of it. */
const COLUMN_CHARS = 60;

/** `waveloop effects <id> [--json]`: the ledger as a table (a goal tree's with the run of each call), or as JSON. */
async function effectsCommand(workflowId: string, options: { json?: boolean }): Promise<number> {
  return withClient(settings(), async (client) => {
    const ledger = await client.effects(workflowId);
    if (options.json) print(JSON.stringify(ledger, null, 2));
    else ledgerLines(ledger).forEach((line) => print(line));
    return 0;
  });
}

/** The ledger for a person: a heading, one row per call, then the runs that could not be read. */
export function ledgerLines(ledger: EffectLedger): string[] {
  const what =
    ledger.kind === 'goal tree' ? `Goal tree ${ledger.workflowId} (its tool loops)` : `Run ${ledger.workflowId}`;
  const count = ledger.effects.length;
  const lines = [
    count === 0
      ? `${what}: no call of a tool that changes something ran.`
      : `${what}: ${count} call${count === 1 ? '' : 's'} of tools that change something.`,
  ];
  if (count > 0) {
    const tree = ledger.kind === 'goal tree';
    lines.push(
      ...alignColumns([
        [...(tree ? ['RUN'] : []), 'ITERATION', 'TOOL', 'EFFECT', 'APPROVED BY', 'ARGUMENTS', 'RESULT'],
        ...ledger.effects.map((entry) => [
          ...(tree ? [entry.workflowId] : []),
          String(entry.iteration),
          entry.tool,
          entry.effect,
          entry.approvedBy?.join(', ') ?? '-',
          clip(JSON.stringify(entry.args)),
          outcomeOf(entry),
        ]),
      ]),
    );
  }
  for (const { workflowId, reason } of ledger.unread ?? [])
    lines.push(`${workflowId}: its calls could not be read (${reason}).`);
  return lines;
}

/** The result or error, how an unknown outcome was settled (`(reconciled)`, `(confirmed by alice)`), and who undid it. */
function outcomeOf(entry: EffectEntry): string {
  const settled = entry.outcome ? ` (${settledBy(entry.outcome)})` : '';
  const undone = entry.undone ? ` (undone by ${entry.undone.by})` : '';
  return `${entry.ok ? clip(entry.result ?? '') : `failed: ${clip(entry.error ?? '')}`}${settled}${undone}`;
}

function settledBy(outcome: NonNullable<EffectEntry['outcome']>): string {
  return outcome.path === 'reconciled' ? 'reconciled' : `${outcome.path.replace('_', ' ')} by ${outcome.by}`;
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > COLUMN_CHARS ? `${line.slice(0, COLUMN_CHARS - 1)}…` : line;
}
