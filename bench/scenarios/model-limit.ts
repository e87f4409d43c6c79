import * as path from 'node:path';
import { goalFor } from '../../test/support/fake-model';
import type { BenchEnv } from '../support/env';
import type { ScenarioResult } from '../support/report';
import { runId, runLoops } from '../support/waveloop';
import { startWorkerProcess } from '../support/worker-processes';

export interface ModelLimitSizes {
  /** Runs started at once. */
  runs: number;
  /** Worker processes serving them. */
  workers: number;
  /** `WAVELOOP_MODEL_RPM` of every worker, and the limit the fake model holds itself. */
  rpm: number;
  /**
   * The window the fake counts its limit over (default 60 s). A short one lets a short run show a
   * broken limit: `runs` × 2 requests at once would pass the fake's limit, the limited ones never do.
   */
  windowSeconds?: number;
}

/** Model calls of each run: a turn with one tool call, then the answer. */
const CALLS_PER_RUN = 2;

/**
 * The shared model limit: `runs` runs at once on `workers` worker processes with
 * `WAVELOOP_MODEL_RPM=rpm`, against the fake model holding the same limit itself (`fakeLimit`: a
 * request past it in the window gets a 429). Measured: the most requests the fake saw in any 60 s
 * window (its own clock), the 429s it answered, and whether every run completed with exactly its
 * model calls (none lost, none made twice).
 */
export async function modelLimit(env: BenchEnv, sizes: ModelLimitSizes): Promise<ScenarioResult> {
  const { runs, workers, rpm } = sizes;
  const limit = fakeLimit(rpm, sizes.windowSeconds ?? 60);
  const taskQueue = `model-limit-${runId('q')}`;
  const bundle = path.join(env.dataDir, 'workflow-bundle.js');
  await env.writeBundle(bundle);
  env.model.reset();
  env.model.limit = limit;
  const processes = await Promise.all(
    Array.from({ length: workers }, () =>
      startWorkerProcess([env.address, env.model.baseURL, taskQueue, bundle, env.dataDir, String(rpm)]),
    ),
  );
  try {
    const ids = Array.from({ length: runs }, () => runId('limit'));
    const started = Date.now();
    const ended = await runLoops(
      env,
      taskQueue,
      ids.map((id) => ({ id, goal: goalFor({ run: id, iters: 1, calls: 1 }), maxIterations: 3 })),
    );
    const seconds = (Date.now() - started) / 1000;
    const completed = ended.filter((run) => run.result?.status === 'completed').length;
    const exact = ids.filter((id) => env.model.arrivals.get(id)?.length === CALLS_PER_RUN).length;
    const seen = [...env.model.seen].sort((a, b) => a - b);
    const most = mostInWindow(seen, 60_000);
    const refused = env.model.refused;
    return {
      id: 11,
      title: `Shared model limit: ${runs} runs on ${workers} worker processes, WAVELOOP_MODEL_RPM=${rpm}`,
      sizes: `${runs} runs × ${CALLS_PER_RUN} model calls and 1 tool call; ${workers} worker processes; the fake model holds ${limit.requests} requests in any ${limit.windowMs / 1000} s itself (429 past it)`,
      table: {
        head: [
          'runs completed',
          'runs with exactly their model calls',
          'model requests',
          'most in any 60 s window',
          '429s the fake answered',
          'took',
        ],
        rows: [
          [`${completed} of ${runs}`, `${exact} of ${runs}`, seen.length, most, refused, `${seconds.toFixed(0)} s`],
        ],
      },
      targets: [
        { target: `most requests in any 60 s window ≤ RPM (${rpm})`, value: String(most), met: most <= rpm },
        {
          target: 'every run completed, none lost, none duplicated',
          value: `${completed}/${exact} of ${runs}`,
          met: completed === runs && exact === runs,
        },
        { target: '429s from the fake holding the same limit', value: String(refused), met: 'no threshold' },
      ],
      notes: [
        `Every worker polls the model queue (\`<queue>-model\`) with maxTaskQueueActivitiesPerSecond = 0.95 × ${rpm}/60; the server holds the rate for the queue, whichever worker polls (docs/flow-control.md). The window is read from the fake's arrival times (all requests, refused ones too); "exactly their model calls": each run's turns reached the fake ${CALLS_PER_RUN} times, no more (a 429 would show as one more).`,
      ],
      data: { runs, workers, rpm, fakeLimit: limit, completed, exact, requests: seen.length, most, refused, seconds },
    };
  } finally {
    env.model.limit = undefined;
    for (const { child } of processes) child.kill('SIGKILL');
  }
}

/**
 * What the fake holds for `rpm` over a window of `windowSeconds`: the window's share of `rpm`, plus
 * two seconds' worth: one that Temporal's limiter on the model queue lets through at once (its
 * burst), one for the time between the server handing a worker a task and its request reaching the
 * fake (a loaded machine delays some requests and sends them together). Over a minute the slack is
 * ignored: the fake holds `rpm` itself.
 */
export function fakeLimit(rpm: number, windowSeconds: number): { requests: number; windowMs: number } {
  const share = Math.floor((rpm * windowSeconds) / 60);
  return { requests: windowSeconds >= 60 ? share : share + 2 * Math.ceil(rpm / 60), windowMs: windowSeconds * 1000 };
}

/** The most of the sorted times `times` inside any window of `windowMs` (half-open: (t - windowMs, t]). */
export function mostInWindow(times: readonly number[], windowMs: number): number {
  let most = 0;
  let first = 0;
  for (let last = 0; last < times.length; last++) {
    while (times[first]! <= times[last]! - windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}
