import { loadConfig } from '../config';
import { PURSUE_GOAL_WORKFLOW } from '../common/goal-defaults';
import { print, withClient } from './cli-support';
import { renderProgress, renderResult, renderResultSummary, renderTranscript, renderWave } from './render';

/**
 * The commands that read runs without changing them: `waveloop status`, `show` and `list`. Each
 * prints to stdout and resolves to exit status 0; a run that does not exist throws.
 */

/** `waveloop status <id> [--json]`: the run's state with its progress, its result or its failure. */
export async function statusCommand(workflowId: string, options: { json?: boolean }): Promise<number> {
  return withClient(loadConfig(), async (client) => {
    const report = await client.status(workflowId);
    if (options.json) {
      print(JSON.stringify(report, null, 2));
      return 0;
    }
    print(`Run:        ${report.workflowId} (${report.execution})`);
    print(`Started:    ${report.startTime.toISOString()}${report.closeTime ? `, closed ${report.closeTime.toISOString()}` : ''}`);
    if (report.progress) renderProgress(report.progress).forEach((line) => print(line));
    else if (report.result) renderResultSummary(report.result).forEach((line) => print(line));
    else if (report.failure) print(`Failure:    ${report.failure}`);
    else print('Progress:   unavailable (no worker answered the status query; start one with `waveloop worker`)');
    return 0;
  });
}

/** `waveloop show <id>`: the run's waves and transcript (the transcript needs a running worker), then its result. */
export async function showCommand(workflowId: string): Promise<number> {
  return withClient(loadConfig(), async (client) => {
    const report = await client.status(workflowId);
    const waves = report.progress?.waves ?? report.result?.waves ?? [];
    print(`Run ${report.workflowId} (${report.execution})`);
    if (report.failure) print(`Failure: ${report.failure}`);
    print('\nWaves:');
    if (waves.length === 0) print('  (none)');
    waves.forEach((wave) => renderWave(wave).forEach((line) => print(`  ${line}`)));
    print('\nTranscript:');
    try {
      renderTranscript(await client.transcript(workflowId, { quick: true })).forEach((line) => print(`  ${line}`));
    } catch (err) {
      print(`  (unavailable: ${err instanceof Error ? err.message : String(err)}; the transcript query needs a running worker)`);
    }
    if (report.result) print(`\n${renderResult(report.result)}`);
    return 0;
  });
}

/** `waveloop list`: recent agent runs and goal trees, one a line, or as JSON. */
export async function listCommand(options: { limit: number; json?: boolean; status?: string }): Promise<number> {
  return withClient(loadConfig(), async (client) => {
    const runs = await client.list(options.limit, options.status);
    if (options.json) print(JSON.stringify(runs, null, 2));
    else if (runs.length === 0) print('No runs yet.');
    else runs.forEach((run) => print(`${run.workflowId.padEnd(40)} ${run.execution.padEnd(11)} ${run.startTime.toISOString()}  ${run.workflowType === PURSUE_GOAL_WORKFLOW ? 'goal tree' : 'agent run'}`));
    return 0;
  });
}
