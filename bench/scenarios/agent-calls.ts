import { defineAgent } from '../../src/agents/define';
import { AGENT_LOOP_WORKFLOW, type AgentLoopResult } from '../../src/contract/agent-loop';
import { goalFor } from '../../test/support/fake-model';
import type { BenchEnv } from '../support/env';
import { ms, type ScenarioResult } from '../support/report';
import { median, p95 } from '../support/stats';
import { runId } from '../support/waveloop';

/** Scenario 14's sizes: how many runs of each kind, one after another. */
export interface AgentCallSizes {
  repeats: number;
}

/** The agent that calls: the bench tool, and `bench-child` offered as a tool. */
const PARENT = defineAgent({
  name: 'bench-parent',
  system: 'You are a benchmark agent. Call the tools as asked.',
  tools: ['bench_tool'],
  agents: ['bench-child'],
});
/** The agent called: no tools, one model call that answers. */
const CHILD = defineAgent({ name: 'bench-child', system: 'You are a benchmark agent. Answer done.', tools: [] });

/** The kinds of run measured, each timed from its start to its result. */
const KINDS = [
  { name: 'the child alone (1 model call)', agent: 'bench-child', calls: 0, tool: undefined },
  { name: '1 tool call', agent: 'bench-parent', calls: 1, tool: undefined },
  { name: '1 agent call', agent: 'bench-parent', calls: 1, tool: 'bench-child' },
  { name: '8 tool calls in one wave', agent: 'bench-parent', calls: 8, tool: undefined },
  { name: '8 agent calls in one wave', agent: 'bench-parent', calls: 8, tool: 'bench-child' },
] as const;

/**
 * Agents as tools (docs/agents.md): what an agent call costs compared with a plain tool call. A
 * parent makes one wave of 1 or 8 calls, of the bench tool or of an agent whose child run answers
 * in one model call, then answers; the child alone, started by a client, is timed too. An agent
 * call's cost over a tool call is (run with agent calls) − (run with tool calls): the child's whole
 * run, its one model call included, which the child alone shows from a client's side.
 */
export async function agentCalls(env: BenchEnv, sizes: AgentCallSizes): Promise<ScenarioResult> {
  const { worker, taskQueue } = await env.worker({}, { agents: [PARENT, CHILD] });
  const times = new Map<string, number[]>(KINDS.map((kind) => [kind.name, []]));
  await worker.runUntil(async () => {
    // One warm-up round, then `repeats` rounds, the kinds in turn.
    for (let round = 0; round <= sizes.repeats; round++) {
      for (const kind of KINDS) {
        const id = runId('agents');
        const goal =
          kind.calls === 0 ? 'Say done.' : goalFor({ run: id, iters: 1, calls: kind.calls, tool: kind.tool });
        const t0 = performance.now();
        const handle = await env.client.workflow.start(AGENT_LOOP_WORKFLOW, {
          taskQueue,
          workflowId: id,
          args: [{ goal, agent: kind.agent, maxIterations: 3 }],
        });
        const result = (await handle.result()) as AgentLoopResult;
        const wallMs = performance.now() - t0;
        if (result.status !== 'completed') throw new Error(`${kind.name}: the run ended ${result.status}`);
        const failed = result.waves.flatMap((wave) => wave.calls).filter((call) => !call.ok);
        if (failed.length) throw new Error(`${kind.name}: ${failed[0].tool} failed: ${failed[0].error}`);
        if (round > 0) times.get(kind.name)!.push(wallMs);
      }
    }
  });
  const med = (name: (typeof KINDS)[number]['name']) => median(times.get(name)!);
  const child = med('the child alone (1 model call)');
  const overOne = med('1 agent call') - med('1 tool call');
  const overEight = med('8 agent calls in one wave') - med('8 tool calls in one wave');
  return {
    id: 14,
    title: 'Agents as tools: the cost of an agent call beyond its child',
    sizes: `${sizes.repeats} runs of each kind, one at a time, after a warm-up round; zero-latency model`,
    table: {
      head: ['run', 'median', 'p95'],
      rows: KINDS.map((kind) => [kind.name, ms(med(kind.name)), ms(p95(times.get(kind.name)!))]),
    },
    targets: [
      {
        target: "1 agent call over 1 tool call (the child's whole run included)",
        value: `${ms(overOne)} (the child alone, started by a client: ${ms(child)})`,
        met: 'no threshold',
      },
      {
        target: '8 agent calls in one wave over 8 tool calls, per child',
        value: ms(overEight / 8),
        met: 'no threshold',
      },
    ],
    notes: [
      "An agent call is a child workflow (`agentLoop`, id `<parent>/<callId>`) started from the parent's workflow task, where a tool call is an activity: its cost beyond the child's own model call is the child's start, its first and last workflow tasks and its result's trip back to the parent.",
      'The 8 children of one wave run at once, so their overhead is mostly the parent waiting for the slowest, and the server starting 8 workflows instead of 8 activities.',
    ],
    data: { times: Object.fromEntries(times), overOne, overEight, child },
  };
}
