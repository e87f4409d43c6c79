import { randomUUID } from 'node:crypto';
import { PURSUE_GOAL_WORKFLOW } from '../../src/contract/goal-tree/defaults';
import type { GoalResult } from '../../src/contract/goal-tree/pursue-goal';
import type { BenchEnv } from '../support/env';
import { chainHistories, sizedEvents } from '../support/env';
import { ms, type ScenarioResult } from '../support/report';
import { runId } from '../support/waveloop';

/** Tree shapes (sub-goals per goal, by depth): 1 + 3 + 6 = 10 goals; 1 + 3 + 24 + 72 = 100 goals. */
const SHAPES: Record<number, number[]> = { 10: [3, 2], 100: [3, 8, 3] };

/**
 * The fake model's goal components: a goal at a depth with a width decomposes into that many
 * sub-goals (one level, all independent), deeper goals are answered directly; every achievement
 * check says achieved. Goal texts carry their depth (`level N`) and a random word, so no sub-goal
 * looks like a cycle.
 */
function treeModel(widths: number[]) {
  return (schema: string | undefined, request: { messages: Array<{ role: string; content?: unknown }> }) => {
    const user = request.messages
      .filter((m) => m.role === 'user')
      .map((m) => String(m.content))
      .join('\n');
    const goal = /^GOAL: (.*)$/m.exec(user)?.[1] ?? '';
    const level = Number(/level (\d+)/.exec(goal)?.[1] ?? 0);
    const json = (value: unknown) => ({ content: JSON.stringify(value) });
    switch (schema) {
      case 'assessment':
        return level < widths.length
          ? json({ directly_executable: false, reasoning: 'broad', decomposition_needed_because: 'parts' })
          : json({
              directly_executable: true,
              reasoning: 'simple',
              action: { kind: 'answer', description: 'answer it' },
            });
      case 'decomposition':
        return json({
          sub_goals: Array.from({ length: widths[level] ?? 1 }, () => ({
            description: `Investigate item k${randomUUID().slice(0, 8)} level ${level + 1}`,
            rationale: 'part',
            dependencies: [],
            estimated_complexity: 'simple',
          })),
          coverage: 'all',
        });
      case 'achievement':
        return json({ achieved: true, confidence: 0.9, reasoning: 'enough', remaining_gaps: [] });
      default:
        return json({ summary: 'done', key_findings: ['found'], confidence: 0.9, limitations: [] });
    }
  };
}

const countGoals = (result: GoalResult): number =>
  1 + (result.children ?? []).reduce((sum, child) => sum + countGoals(child as GoalResult), 0);

/** Goal trees of 10 and 100 goals with a zero-latency model: what one goal (one child workflow) costs. */
export async function goalTrees(env: BenchEnv, sizes: number[]): Promise<ScenarioResult> {
  const { worker, taskQueue } = await env.worker();
  const figures = await worker.runUntil(async () => {
    const out: Array<{
      goals: number;
      modelCalls: number;
      wallMs: number;
      statuses: string;
      eventsPerGoal: number;
      bytesPerGoal: number;
    }> = [];
    for (const size of [sizes[0], ...sizes]) {
      const widths = SHAPES[size];
      env.model.structured = treeModel(widths);
      const before = env.model.requestCount;
      const id = runId(`tree${size}`);
      const t0 = performance.now();
      const handle = await env.client.workflow.start(PURSUE_GOAL_WORKFLOW, {
        taskQueue,
        workflowId: id,
        args: [
          {
            goal: `Bench tree ${randomUUID().slice(0, 8)} level 0`,
            maxGoals: 1_000,
            maxDepth: widths.length + 1,
          },
        ],
      });
      const result = (await handle.result()) as GoalResult;
      const wallMs = performance.now() - t0;
      const goals = countGoals(result);
      let events = 0;
      let bytes = 0;
      const ids = [id];
      const walk = (r: GoalResult) =>
        (r.children ?? []).forEach((c) => (ids.push((c as GoalResult).workflowId ?? ''), walk(c as GoalResult)));
      walk(result);
      for (const wid of ids) {
        const description = await env.client.workflow.getHandle(wid).describe();
        for (const h of await chainHistories(env.client, wid, description.runId)) {
          const sized = sizedEvents(h);
          events += sized.length;
          bytes += sized.reduce((s, e) => s + e.bytes, 0);
        }
      }
      out.push({
        goals,
        modelCalls: env.model.requestCount - before,
        wallMs,
        statuses: result.status,
        eventsPerGoal: events / ids.length,
        bytesPerGoal: bytes / ids.length,
      });
    }
    return out.slice(1); // the first tree warms up
  });
  env.model.structured = () => ({ content: 'done' });
  const [small, large] = figures;
  const perChild = large && small ? (large.wallMs - small.wallMs) / (large.goals - small.goals) : NaN;
  return {
    id: 7,
    title: 'Goal trees: cost per goal (each sub-goal a child workflow)',
    sizes: `trees of ${sizes.join(' and ')} goals (shapes 1+3+6 and 1+3+24+72; sub-goals of one goal run in parallel), zero-latency model, after a warm-up tree`,
    table: {
      head: [
        'goals',
        'model calls',
        'wall time',
        'wall time per goal',
        'history events per goal',
        'history bytes per goal',
        'root status',
      ],
      rows: figures.map((f) => [
        f.goals,
        f.modelCalls,
        ms(f.wallMs, 0),
        ms(f.wallMs / f.goals),
        f.eventsPerGoal.toFixed(0),
        `${(f.bytesPerGoal / 1024).toFixed(1)} KiB`,
        f.statuses,
      ]),
    },
    targets: [],
    notes:
      large && small
        ? [
            `Overhead per additional child workflow, (T(${large.goals}) − T(${small.goals})) / ${large.goals - small.goals}: ${ms(perChild)}; with a zero-latency model this is all engine time (a goal is 2–4 model activities and its child workflow), and the levels of a tree run one after the other.`,
          ]
        : [],
    data: figures,
  };
}
