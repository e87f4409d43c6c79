import * as path from 'node:path';
import { DEFAULT_MODEL_ACTIVITY_OPTIONS, HEARTBEAT_TIMEOUT_MS } from '../../src/contract/activity-options';
import { AGENT_LOOP_WORKFLOW } from '../../src/contract/agent-loop';
import { DEFAULT_WORKER_TUNING } from '../../src/worker/tuning';
import { goalFor } from '../../test/support/fake-model';
import type { BenchEnv } from '../support/env';
import { EventType, timeOf } from '../support/env';
import { ms, type ScenarioResult } from '../support/report';
import { sleep } from '../support/stats';
import { runId } from '../support/waveloop';
import { startWorkerProcess } from '../support/worker-processes';

const SLOW_CALL_MS = 5_000;

/**
 * A run's worker is killed (SIGKILL) during a model call; a new worker process starts at once.
 * Measured: from the new worker's start to the next completed activity of the run (the model call,
 * retried), and on to the end of the run.
 */
export async function recovery(env: BenchEnv): Promise<ScenarioResult> {
  const taskQueue = `recovery-${runId('q')}`;
  const bundle = path.join(env.dataDir, 'workflow-bundle.js');
  await env.writeBundle(bundle);
  const args = [env.address, env.model.baseURL, taskQueue, bundle, env.dataDir];
  const id = runId('recovery');
  // The second model call of the run is slow, so the kill lands in the middle of it; its retry is not.
  env.model.delayFor = (run, call) => (run === id && call === 2 ? SLOW_CALL_MS : undefined);
  let secondCall: () => void = () => undefined;
  const inSecondCall = new Promise<void>((resolve) => (secondCall = resolve));
  env.model.onRequest = (run) => {
    if (run === id && env.model.arrivals.get(id)?.length === 2) secondCall();
  };
  const first = await startWorkerProcess(args);
  let second: Awaited<ReturnType<typeof startWorkerProcess>> | undefined;
  try {
    const handle = await env.client.workflow.start(AGENT_LOOP_WORKFLOW, {
      taskQueue,
      workflowId: id,
      args: [{ goal: goalFor({ run: id, iters: 3, calls: 1 }), maxIterations: 5 }],
    });
    await inSecondCall;
    await sleep(500);
    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    second = await startWorkerProcess(args);
    let completedAt: number | undefined;
    while (completedAt === undefined) {
      const history = await handle.fetchHistory();
      const done = (history.events ?? []).find(
        (e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED && timeOf(e) >= killedAt,
      );
      if (done) completedAt = timeOf(done);
      else await sleep(50);
    }
    await handle.result();
    const endedAt = Date.now();
    const row = {
      killToReady: second.readyAt - killedAt,
      startToReady: second.readyAt - second.spawnedAt,
      startToCompleted: completedAt - second.spawnedAt,
      killToCompleted: completedAt - killedAt,
      killToRunEnd: endedAt - killedAt,
    };
    return {
      id: 6,
      title: 'Recovery: a worker killed during a model call',
      sizes: `one run; its second model call takes ${SLOW_CALL_MS / 1000} s and the worker is killed (SIGKILL) 0.5 s into it; a new worker process starts at once`,
      table: {
        head: [
          'new worker: start → polling',
          'new worker start → next completed activity',
          'kill → next completed activity',
          'kill → run completed',
        ],
        rows: [
          [ms(row.startToReady, 0), ms(row.startToCompleted, 0), ms(row.killToCompleted, 0), ms(row.killToRunEnd, 0)],
        ],
      },
      targets: [
        {
          target: 'kill → next completed activity ≤ 3 s',
          value: ms(row.killToCompleted, 0),
          met: row.killToCompleted <= 3000,
        },
      ],
      notes: [
        `The server notices a dead worker's activity when its heartbeat timeout passes: the model activity heartbeats, with a heartbeatTimeout of ${HEARTBEAT_TIMEOUT_MS / 1000} s (heartbeatSeconds), then retries after ${String(DEFAULT_MODEL_ACTIVITY_OPTIONS.retry?.initialInterval)}; without heartbeats it would wait for the start-to-close timeout (${String(DEFAULT_MODEL_ACTIVITY_OPTIONS.startToCloseTimeout)}).`,
        `After the retried model call, the next workflow task goes first to the dead worker's sticky queue and reaches the new worker when that times out (stickyQueueScheduleToStartTimeout, ${String(DEFAULT_WORKER_TUNING.stickyQueueScheduleToStartTimeout)}; the SDK's default is 10 s), which shows in kill → run completed.`,
      ],
      data: row,
    };
  } finally {
    env.model.delayFor = undefined;
    env.model.onRequest = undefined;
    first.child.kill('SIGKILL');
    second?.child.kill('SIGKILL');
  }
}
