import { Option, type Command } from 'commander';
import type { UndoReport } from '../../client/undo';
import { denyCommandLine } from '../../contract/command-lines';
import type { UndoEntry } from '../../contract/effects/undo';
import { action, byOption, note, osUser, parsePositiveInt, print, settings, withClient } from '../support';
import { alignColumns } from '../ui/table';

/** `waveloop undo`: reverses what an ended run changed, later calls first (docs/effects.md#undo). */

/** Adds `waveloop undo`. */
export function register(program: Command): void {
  program
    .command('undo')
    .argument('<id>', 'workflow id of an agent run that has ended')
    .addOption(
      new Option('--to-iteration <n>', 'undo only the calls of iterations after n (iteration n is kept)').argParser(
        parseIteration,
      ),
    )
    .option('--dry-run', 'list what would be undone, and undo nothing')
    .option('--skip-irreversible', 'go past calls whose tool has no undo instead of stopping at the first')
    .addOption(byOption('asks for the undo'))
    .option('--json', 'print the result as JSON')
    .description(
      "undo what an ended run changed: each call that changed something, by its tool's undo, later calls first; waits until it has finished",
    )
    .action(action((id: string, options: UndoCommandOptions) => undoCommand(id, options)));
}

interface UndoCommandOptions {
  toIteration?: number;
  dryRun?: boolean;
  skipIrreversible?: boolean;
  by?: string;
  json?: boolean;
}

function parseIteration(value: string): number {
  return value === '0' ? 0 : parsePositiveInt(value);
}

/**
 * `waveloop undo <id>`: exits 0 when every call it was to undo was undone (or nothing was left), 1
 * when the undo stopped at a call that cannot be undone, an undo failed or was denied, and 1 when it
 * was refused (the run still runs). While the undo waits for an approval, stderr says so, with the
 * commands that decide it.
 */
async function undoCommand(workflowId: string, options: UndoCommandOptions): Promise<number> {
  return withClient(settings(), async (client) => {
    const report = await client.undo(workflowId, {
      ...(options.toIteration === undefined ? {} : { toIteration: options.toIteration }),
      dryRun: options.dryRun ?? false,
      skipIrreversible: options.skipIrreversible ?? false,
      by: options.by ?? osUser(),
      onWaiting: (decision) =>
        note(
          `Waiting for approval of the undo of ${decision.tool} (${decision.callId}, iteration ${decision.iteration})` +
            `${decision.approvers ? `, by ${decision.approvers.label}` : ''}: ${decision.command}` +
            ` (or ${denyCommandLine(decision.workflowId, decision.callId!)})`,
        ),
    });
    if (options.json) print(JSON.stringify(report, null, 2));
    else undoLines(report).forEach((line) => print(line));
    return report.stoppedAt || report.failed.length || report.denied.length ? 1 : 0;
  });
}

/** The report for a person: what was (or would be) undone, what could not be, what failed. */
export function undoLines(report: UndoReport): string[] {
  const run = report.workflowId;
  const tried =
    report.undone.length +
    report.cannotUndo.length +
    report.failed.length +
    report.denied.length +
    report.notReached.length;
  if (tried === 0) {
    const before = report.alreadyUndone.length;
    return [
      before
        ? `Nothing left to undo in ${run}${afterNote(report)}: ${calls(before)} undone already, by ${[...new Set(report.alreadyUndone.map((c) => c.by))].join(', ')}.`
        : `Nothing to undo in ${run}${afterNote(report)}: no call that changed something succeeded.`,
    ];
  }
  const lines = [
    report.dryRun
      ? `Dry run: would undo ${calls(report.undone.length)} of ${run}${afterNote(report)}; nothing was undone.`
      : `Undid ${calls(report.undone.length)} of ${run}${afterNote(report)} (${report.undoId}, by ${report.by}).`,
  ];
  if (report.undone.length) lines.push(...table(report.undone, report.dryRun ? 'RESULT' : 'UNDO', report.dryRun));
  if (report.stoppedAt) {
    const { tool, callId, iteration } = report.stoppedAt;
    lines.push(
      `Stopped at ${tool} (${callId}, iteration ${iteration}): ${tool} has no undo, so this call cannot be undone.` +
        ` ${report.notReached.length ? `${calls(report.notReached.length)} before it ${report.dryRun ? 'would not be' : 'were not'} undone; ` : ''}--skip-irreversible goes past it.`,
    );
  }
  const passed = report.cannotUndo.filter((entry) => entry.callId !== report.stoppedAt?.callId);
  if (passed.length)
    lines.push(
      `Cannot be undone (no undo), passed by: ${passed.map((e) => `${e.tool} (${e.callId}, iteration ${e.iteration})`).join(', ')}.`,
    );
  for (const entry of report.failed)
    lines.push(`Failed to undo ${entry.tool} (${entry.callId}, iteration ${entry.iteration}): ${entry.error ?? ''}`);
  for (const entry of report.denied)
    lines.push(
      `Not undone, denied by ${entry.denied?.by ?? 'unknown'}: ${entry.tool} (${entry.callId}, iteration ${entry.iteration}): ${entry.denied?.reason ?? ''}`,
    );
  return lines;
}

/** The calls, one a row; with who approved each undo when some waited for approval. */
function table(entries: readonly UndoEntry[], last: string, dryRun: boolean): string[] {
  const approved = entries.some((e) => e.approvedBy);
  return alignColumns([
    ['ITERATION', 'CALL', 'TOOL', 'ARGUMENTS', last, ...(approved ? ['APPROVED BY'] : [])],
    ...entries.map((e) => [
      String(e.iteration),
      e.callId,
      e.tool,
      clip(JSON.stringify(e.args)),
      clip(dryRun ? e.result : (e.undoResult ?? '')),
      ...(approved ? [e.approvedBy?.join(', ') ?? '-'] : []),
    ]),
  ]);
}

function afterNote(report: UndoReport): string {
  return report.toIteration === undefined ? '' : ` after iteration ${report.toIteration}`;
}

function calls(count: number): string {
  return `${count} call${count === 1 ? '' : 's'}`;
}

/** The longest argument list or result a line shows; `--json` has all of it. */
const COLUMN_CHARS = 60;

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > COLUMN_CHARS ? `${line.slice(0, COLUMN_CHARS - 1)}…` : line;
}
