import { Option, type Command } from 'commander';
import { type ListedRun } from '../../client/run-list';
import type { WaveloopClient } from '../../client/waveloop-client';
import { identifyWorkflow, requireKind, useInstead, type IdentifiedWorkflow } from '../../client/workflow-kind';
import { RUN_STATES, type RunState } from '../../contract/agent-loop';
import { UNDO_WORKFLOW } from '../../contract/effects/undo';
import { FORKED_FROM_MEMO, type ForkedFrom } from '../../contract/fork/fork';
import { PURSUE_GOAL_WORKFLOW } from '../../contract/goal-tree/defaults';
import type { GoalResult } from '../../contract/goal-tree/pursue-goal';
import { clip } from '../../contract/goal-tree/text';
import { UsageError } from '../errors';
import { action, parsePositiveInt, print, settings, withClient } from '../support';
import { renderPriority } from '../ui/priority';
import {
  handoffsLine,
  renderProgress,
  renderResult,
  renderResultSummary,
  renderTranscript,
  renderWave,
} from '../ui/render';
import { alignColumns } from '../ui/table';

/**
 * The commands that read runs without changing them: `waveloop status` (of an agent run or a goal
 * tree), `show` (an agent run's waves and transcript) and `list`. Each prints to stdout and resolves
 * to exit status 0; an id of no run throws `UnknownWorkflowError`, one of the other kind a
 * `UsageError` that names the command to use.
 */

/** Adds `waveloop status`, `show` and `list`. */
export function register(program: Command): void {
  program
    .command('status')
    .argument('<id>', 'workflow id of an agent run or a goal tree')
    .option('--json', 'print JSON')
    .description("show a run's status, iteration, waves, token usage and what waits for a person; a goal tree's status")
    .action(action((id: string, options: { json?: boolean }) => statusCommand(id, options)));
  program
    .command('show')
    .argument('<id>', 'workflow id of an agent run')
    .description("show a run's waves and transcript")
    .action(action((id: string) => showCommand(id)));
  program
    .command('list')
    .description('list recent agent runs and goal trees')
    .addOption(new Option('--limit <n>', 'how many').argParser(parsePositiveInt).default(20))
    .addOption(
      new Option(
        '--status <status>',
        'only agent runs in this state, e.g. waiting_for_input or waiting_for_approval',
      ).choices(RUN_STATES),
    )
    .option('--json', 'print JSON')
    .option('--schedule <name>', 'only the runs this schedule started')
    .option('--eval <name>', "only the runs of this eval's cases")
    .action(
      action((options: { limit: number; json?: boolean; status?: RunState; schedule?: string; eval?: string }) =>
        listCommand(options),
      ),
    );
}

/** `waveloop status <id> [--json]`: an agent run's status with its progress, its result or its failure; a goal tree's status and result. */
async function statusCommand(workflowId: string, options: { json?: boolean }): Promise<number> {
  return withClient(settings(), async (client) => {
    const workflow = await identifyWorkflow(client, workflowId);
    if (workflow.kind === 'goal tree') return goalTreeStatus(client, workflow, options);
    if (workflow.kind !== 'agent run') throw new UsageError(useInstead(workflow));
    const report = await client.runs.status(workflowId);
    if (options.json) {
      print(JSON.stringify(report, null, 2));
      return 0;
    }
    print(`Run:        ${report.workflowId}`);
    print(
      `Started:    ${report.startTime.toISOString()}${report.closeTime ? `, closed ${report.closeTime.toISOString()}` : ''}`,
    );
    if (report.priority) print(`Priority:   ${renderPriority(report.priority)}`);
    if (report.progress) renderProgress(report.progress).forEach((line) => print(line));
    else if (report.result) renderResultSummary(report.result).forEach((line) => print(line));
    else if (report.execution === 'RUNNING')
      print(
        'Status:     running (progress unavailable: no worker answered the status query; start one with `waveloop worker`)',
      );
    else {
      print(`Status:     ${report.execution.toLowerCase()}`);
      if (report.failure) print(`Failure:    ${report.failure}`);
    }
    return 0;
  });
}

/** `waveloop status` of a goal tree: its status (the root's result's, once it has one) and where its goals are shown. */
async function goalTreeStatus(
  client: WaveloopClient,
  workflow: IdentifiedWorkflow,
  options: { json?: boolean },
): Promise<number> {
  const description = await client.runs.handle(workflow.workflowId).describe();
  const result = workflow.execution === 'COMPLETED' ? await client.goals.result(workflow.workflowId) : undefined;
  const status = result?.status ?? workflow.execution.toLowerCase();
  if (options.json) {
    const { workflowId, workflowType, execution } = workflow;
    print(
      JSON.stringify(
        {
          workflowId,
          workflowType,
          execution,
          status,
          startTime: description.startTime,
          closeTime: description.closeTime,
          result,
        },
        null,
        2,
      ),
    );
    return 0;
  }
  print(`Goal tree:  ${workflow.workflowId}`);
  print(
    `Started:    ${description.startTime.toISOString()}${description.closeTime ? `, closed ${description.closeTime.toISOString()}` : ''}`,
  );
  print(`Status:     ${status}`);
  if (result) print(`Summary:    ${summaryLine(result)}`);
  print(`Goals:      \`waveloop tree ${workflow.workflowId}\` shows them`);
  return 0;
}

function summaryLine(result: GoalResult): string {
  return clip(result.report.summary.replace(/\s+/g, ' ').trim(), 200);
}

/**
 * `waveloop show <id>`: an agent run's iterations, waves and transcript (the transcript needs a running
 * worker), then its result. Iterations and waves are numbered as `waveloop fork --at` reads them.
 */
async function showCommand(workflowId: string): Promise<number> {
  return withClient(settings(), async (client) => {
    await requireKind(client, workflowId, 'agent run');
    const report = await client.runs.status(workflowId);
    const waves = report.progress?.waves ?? report.result?.waves ?? [];
    print(
      `Run ${report.workflowId} (${report.progress?.status ?? report.result?.status ?? report.execution.toLowerCase()})`,
    );
    if (report.failure) print(`Failure: ${report.failure}`);
    const forkedFrom = report.progress?.forkedFrom ?? (await forkedFromMemo(client, workflowId));
    if (forkedFrom)
      print(`Forked from ${forkedFrom.workflowId} at iteration ${forkedFrom.iteration} (run ${forkedFrom.runId})`);
    const handoffs = report.progress?.handoffs ?? report.result?.handoffs;
    if (handoffs) print(`Handed over: ${handoffsLine(handoffs)}`);
    const iterations = report.progress?.iteration ?? report.result?.iterations ?? 0;
    if (iterations > 0)
      print(
        `Iterations: ${forkedFrom ? forkedFrom.iteration + 1 : 1} to ${iterations} (\`waveloop fork ${workflowId} --at <n>\` starts a new run after iteration n)`,
      );
    print("\nWaves (wave n: iteration n's tool calls):");
    if (waves.length === 0) print('  (none)');
    waves.forEach((wave) => renderWave(wave).forEach((line) => print(`  ${line}`)));
    print('\nTranscript:');
    try {
      renderTranscript(await client.runs.transcript(workflowId, { quick: true })).forEach((line) => print(`  ${line}`));
    } catch (err) {
      print(
        `  (unavailable: ${err instanceof Error ? err.message : String(err)}; the transcript query needs a running worker)`,
      );
    }
    if (report.result) print(`\n${renderResult(report.result)}`);
    return 0;
  });
}

/** Where a run was forked from, as its memo says (a run that ended has no `status` query answer to say it). */
async function forkedFromMemo(client: WaveloopClient, workflowId: string): Promise<ForkedFrom | undefined> {
  const { memo } = await client.runs.handle(workflowId).describe();
  return memo?.[FORKED_FROM_MEMO] as ForkedFrom | undefined;
}

const GOAL_CHARS = 60;

/** `waveloop list`: recent agent runs and goal trees, one a line under a header, or as JSON. */
async function listCommand(options: {
  limit: number;
  json?: boolean;
  status?: RunState;
  schedule?: string;
  eval?: string;
}): Promise<number> {
  return withClient(settings(), async (client) => {
    const { limit, status, schedule } = options;
    const runs = await client.runs.list({ limit, status, schedule, eval: options.eval });
    if (options.json) print(JSON.stringify(runs, null, 2));
    else if (runs.length === 0) print(options.status ? `No agent runs are ${options.status}.` : 'No runs yet.');
    else {
      const rows = runs.map((run) => [
        run.workflowId,
        run.status,
        run.startTime.toISOString(),
        run.startedBy,
        kindOf(run),
        renderPriority(run.priority),
        clipGoal(run.goal),
      ]);
      for (const line of alignColumns([['ID', 'STATUS', 'STARTED', 'BY', 'KIND', 'PRIORITY', 'GOAL'], ...rows]))
        print(line);
    }
    return 0;
  });
}

function kindOf(run: ListedRun): string {
  const dry = run.dryRun ? 'DRY RUN · ' : '';
  if (run.forkedFrom) return `${dry}fork of ${run.forkedFrom.workflowId} at ${run.forkedFrom.iteration}`;
  if (run.workflowType === UNDO_WORKFLOW) return 'undo';
  return dry + (run.workflowType === PURSUE_GOAL_WORKFLOW ? 'goal tree' : 'agent run');
}

function clipGoal(goal: string | undefined): string {
  return goal ? clip(goal, GOAL_CHARS) : '–';
}
