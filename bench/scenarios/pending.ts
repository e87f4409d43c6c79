import { WaveloopClient } from '../../src/client/waveloop-client';
import { AGENT_LOOP_WORKFLOW } from '../../src/contract/agent-loop';
import { goalFor } from '../../test/support/fake-model';
import type { BenchEnv } from '../support/env';
import { ms, type ScenarioResult } from '../support/report';
import { median } from '../support/stats';
import { runId, runLoops } from '../support/waveloop';

/** How many times the list is read, one after another. */
const READS = 5;

export interface PendingSizes {
  /** Runs that completed (one iteration each). */
  done: number;
  /** Runs that wait for the approval of their tool call. */
  waiting: number;
}

/**
 * `runs.pending()` (`waveloop pending`): `done` runs that completed and `waiting` runs whose tool
 * call waits for approval, on one worker; the list is read `READS` times and timed.
 */
export async function pendingDecisions(env: BenchEnv, sizes: PendingSizes): Promise<ScenarioResult> {
  const { worker, taskQueue } = await env.worker();
  const client = new WaveloopClient(env.client, taskQueue);
  const waitingIds = Array.from({ length: sizes.waiting }, () => runId('pending-wait'));
  const times: number[] = [];
  let listed = 0;
  await worker.runUntil(async () => {
    const done = await runLoops(
      env,
      taskQueue,
      Array.from({ length: sizes.done }, () => {
        const id = runId('pending-done');
        return { id, goal: goalFor({ run: id }), maxIterations: 2 };
      }),
    );
    const failed = done.filter((run) => run.error);
    if (failed.length) throw new Error(`${failed.length} of the completed runs failed: ${String(failed[0].error)}`);
    await Promise.all(
      waitingIds.map((id) =>
        env.client.workflow.start(AGENT_LOOP_WORKFLOW, {
          taskQueue,
          workflowId: id,
          args: [{ goal: goalFor({ run: id }), maxIterations: 2, toolsToApprove: ['bench_tool'] }],
        }),
      ),
    );
    // Until every waiting run is in the visibility store with its status, and answers.
    for (let attempt = 0; ; attempt++) {
      const { decisions } = await client.runs.pending();
      if (decisions.filter((d) => waitingIds.includes(d.workflowId)).length === sizes.waiting) break;
      if (attempt > 300) throw new Error('The waiting runs never all showed up in the list.');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (let i = 0; i < READS; i++) {
      const t0 = performance.now();
      const { decisions } = await client.runs.pending();
      times.push(performance.now() - t0);
      listed = decisions.filter((d) => waitingIds.includes(d.workflowId)).length;
    }
    await Promise.all(waitingIds.map((id) => env.client.workflow.getHandle(id).terminate('bench done')));
  });
  return {
    id: 9,
    title: 'Everything waiting for a person (`waveloop pending`)',
    sizes: `${sizes.done} completed runs and ${sizes.waiting} runs waiting for an approval; the list read ${READS} times`,
    table: {
      head: ['runs', 'waiting', 'decisions listed', 'median', 'slowest'],
      rows: [[sizes.done + sizes.waiting, sizes.waiting, listed, ms(median(times)), ms(Math.max(...times))]],
    },
    targets: [
      {
        target: 'the list with 1,000 runs of which 50 wait: a few seconds',
        value: ms(median(times)),
        met: sizes.waiting < 50 ? 'no threshold' : median(times) < 3_000,
      },
    ],
    notes: [
      "The waiting runs come from Temporal's visibility store by their WaveloopStatus, so the completed runs cost nothing; what each waits for comes from its `status` query, eight runs at a time, each answered by the worker from its cache.",
    ],
    data: { times, listed },
  };
}
