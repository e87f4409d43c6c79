import { AGENT_LOOP_WORKFLOW } from '../../src/contract/agent-loop';
import { goalFor } from '../../test/support/fake-model';
import type { BenchEnv } from '../support/env';
import { ratio, type ScenarioResult } from '../support/report';
import { sleep } from '../support/stats';
import { runId } from '../support/waveloop';

export interface FairnessSizes {
  /** Tenant A's runs, started first. */
  a: number;
  /** Tenant B's runs, started `delayMs` later. */
  b: number;
  delayMs: number;
}

/** The worker's activity slots: few, so that A's runs make a backlog on the task queue. */
const SLOTS = 4;
const TOOL_MS = 200;
const MODEL_MS = 100;

/**
 * Fairness between tenants: tenant A starts `a` runs at once, tenant B `b` runs `delayMs` later, on
 * one worker of few activity slots, so the task queue has a backlog of A's tasks when B's arrive.
 * Measured: B's time from its start to its last run's end, once with fairness keys (`fairnessKey`
 * = the tenant, on the workflow start and every activity) and once without, in the same sitting
 * on task queues of their own; the ratio with / without.
 */
export async function fairness(env: BenchEnv, sizes: FairnessSizes): Promise<ScenarioResult> {
  const without = await sitting(env, sizes, false);
  const withKeys = await sitting(env, sizes, true);
  const r = withKeys.bMs / without.bMs;
  return {
    id: 12,
    title: `Fairness: tenant A starts ${sizes.a} runs, tenant B ${sizes.b} runs ${sizes.delayMs / 1000} s later`,
    sizes: `each run: a model call, a ${TOOL_MS} ms tool call, a model call (the model answers in ${MODEL_MS} ms); one worker with ${SLOTS} activity slots`,
    table: {
      head: ['', "B's time to finish", "A's time to finish", 'runs completed'],
      rows: [
        [
          'without fairness keys',
          `${(without.bMs / 1000).toFixed(1)} s`,
          `${(without.aMs / 1000).toFixed(1)} s`,
          `${without.completed} of ${sizes.a + sizes.b}`,
        ],
        [
          'with fairness keys',
          `${(withKeys.bMs / 1000).toFixed(1)} s`,
          `${(withKeys.aMs / 1000).toFixed(1)} s`,
          `${withKeys.completed} of ${sizes.a + sizes.b}`,
        ],
      ],
    },
    targets: [{ target: "B's time with fairness keys ≤ 0.5× its time without", value: ratio(r), met: r <= 0.5 }],
    notes: [
      `The server runs with matching.enableFairness and one partition per task queue (src/server/tuning.ts). Fairness orders a backlog: B's tasks share the queue's dispatches with A's by weight instead of waiting behind them. A's time is from its start.`,
    ],
    data: { sizes, without, withKeys, ratio: r },
  };
}

async function sitting(
  env: BenchEnv,
  { a, b, delayMs }: FairnessSizes,
  keys: boolean,
): Promise<{ aMs: number; bMs: number; completed: number }> {
  const { worker, taskQueue } = await env.worker({ maxConcurrentActivityTaskExecutions: SLOTS });
  const start = (tenant: string) => {
    const id = runId(`fair-${tenant}`);
    return env.client.workflow.start(AGENT_LOOP_WORKFLOW, {
      taskQueue,
      workflowId: id,
      args: [
        {
          goal: goalFor({ run: id, iters: 1, calls: 1, sleep: TOOL_MS, delay: MODEL_MS }),
          maxIterations: 3,
          ...(keys ? { fairnessKey: tenant } : {}),
        },
      ],
      ...(keys ? { priority: { fairnessKey: tenant } } : {}),
    });
  };
  const finish = async (handles: Array<Awaited<ReturnType<typeof start>>>, from: number) => {
    const results = await Promise.all(
      handles.map((h) =>
        h.result().then(
          () => 1,
          () => 0,
        ),
      ),
    );
    return { ms: Date.now() - from, completed: results.reduce<number>((n, x) => n + x, 0) };
  };
  return worker.runUntil(async () => {
    const aFrom = Date.now();
    const aHandles = await Promise.all(Array.from({ length: a }, () => start('tenant-a')));
    const aDone = finish(aHandles, aFrom);
    await sleep(Math.max(0, delayMs - (Date.now() - aFrom)));
    const bFrom = Date.now();
    const bHandles = await Promise.all(Array.from({ length: b }, () => start('tenant-b')));
    const [aEnd, bEnd] = await Promise.all([aDone, finish(bHandles, bFrom)]);
    return { aMs: aEnd.ms, bMs: bEnd.ms, completed: aEnd.completed + bEnd.completed };
  });
}
