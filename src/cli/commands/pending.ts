import type { Command } from 'commander';
import type { PendingDecision } from '../../client/pending';
import { chainLine } from '../../contract/agent-chain';
import { clip } from '../../contract/goal-tree/text';
import { needsLine, previewLines } from '../../contract/people/approvals';
import { toolSummary } from '../../contract/summaries';
import { action, note, print, settings, withClient } from '../support';
import { alignColumns } from '../ui/table';

/** Adds `waveloop pending`. */
export function register(program: Command): void {
  program
    .command('pending')
    .description(
      'list every decision waiting for a person, across all runs and goal trees, with the command that gives it',
    )
    .option('--json', 'print JSON')
    .action(action((options: { json?: boolean }) => pending(options)));
}

/**
 * `waveloop pending [--json]`: the approvals, calls of unknown outcome, questions and conversations
 * waiting, oldest first; a line on stderr names the waiting runs no worker answered for.
 */
async function pending(options: { json?: boolean }): Promise<number> {
  return withClient(settings(), async (client) => {
    const { decisions, unanswered } = await client.runs.pending();
    if (options.json) print(JSON.stringify(decisions, null, 2));
    else if (decisions.length === 0) print('Nothing waits for a person.');
    else {
      const now = Date.now();
      const rows = decisions.map((d) => [waited(now, d.waitingSince), d.kind, d.workflowId, what(d), d.command]);
      alignColumns([['WAITED', 'KIND', 'RUN', 'WHAT', 'DECIDE WITH'], ...rows]).forEach((line) => print(line));
    }
    if (unanswered.length > 0) {
      note(
        `${unanswered.length} more waiting run(s) did not answer (no worker serves them now): ${unanswered.join(', ')}`,
      );
    }
    return 0;
  });
}

/** What waits: the call (`tool(args)`), the question or the agent's message, on one short line. */
function what(decision: PendingDecision): string {
  if (decision.kind === 'approval') {
    const call = toolSummary(decision.iteration ?? 0, decision.tool!, decision.args ?? {});
    const needs = needsLine(decision);
    const preview = decision.preview ? previewLines(decision.preview).join('; ') : '';
    return [
      decision.reason ? `${call}: ${clip(decision.reason, 60)}` : call,
      ...(needs ? [`(${needs})`] : []),
      ...(preview ? [`[${clip(preview, 80)}]`] : []),
      ...(decision.startedBy ? [`started by ${decision.startedBy}`] : []),
      ...(decision.chain ? [`for ${chainLine(decision.chain)} › ${decision.agent}`] : []),
    ].join(' ');
  }
  if (decision.kind === 'outcome') {
    const call = toolSummary(decision.iteration ?? 0, decision.tool!, decision.args ?? {});
    const needs = needsLine(decision);
    return [`${call} may or may not have run (${clip(decision.why ?? '', 60)})`, ...(needs ? [`(${needs})`] : [])].join(
      ' ',
    );
  }
  return clip(decision.question ?? decision.message ?? '', 60);
}

/** How long ago `since` was, in the largest whole unit: `45s`, `12m`, `3h`, `2d`. */
function waited(now: number, since: string): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(since)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}
