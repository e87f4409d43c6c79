import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities, Registry } from '../../src/activities';
import { defineAgent } from '../../src/agents/define';
import type { ModelCallOutput, ToolCallOutput } from '../../src/contract/activity-io';
import { AGENT_LOOP_WORKFLOW, type AgentLoopResult, type ChatMessage } from '../../src/contract/agent-loop';
import { SETTINGS } from '../../src/contract/settings/declarations';
import { createModelClient } from '../../src/worker';
import { benchTool } from './bench-tool';
import type { BenchEnv } from './env';

export interface LoopRun {
  id: string;
  goal: string;
  maxIterations: number;
  maxHistoryEvents?: number;
  /** Model calls as local activities (`AgentLoopInput.localModelCalls`). */
  localModelCalls?: boolean;
  /** How many tool calls of a wave run at once (`AgentLoopInput.maxParallelTools`; default 16). */
  maxParallelTools?: number;
}

/** Starts waveloop runs on `taskQueue` (all at once) and waits for every result. */
export async function runLoops(
  env: BenchEnv,
  taskQueue: string,
  runs: LoopRun[],
): Promise<Array<{ id: string; runId: string; result?: AgentLoopResult; error?: unknown }>> {
  const handles = await Promise.all(
    runs.map((run) =>
      env.client.workflow.start(AGENT_LOOP_WORKFLOW, {
        taskQueue,
        workflowId: run.id,
        args: [
          {
            goal: run.goal,
            maxIterations: run.maxIterations,
            ...(run.maxHistoryEvents ? { maxHistoryEvents: run.maxHistoryEvents } : {}),
            ...(run.localModelCalls ? { localModelCalls: true } : {}),
            ...(run.maxParallelTools ? { maxParallelTools: run.maxParallelTools } : {}),
          },
        ],
      }),
    ),
  );
  return Promise.all(
    handles.map(async (handle) => {
      try {
        return {
          id: handle.workflowId,
          runId: handle.firstExecutionRunId,
          result: (await handle.result()) as AgentLoopResult,
        };
      } catch (error) {
        return { id: handle.workflowId, runId: handle.firstExecutionRunId, error };
      }
    }),
  );
}

/** Runs the runs one after another. */
export async function runLoopsInTurn(env: BenchEnv, taskQueue: string, runs: LoopRun[]) {
  const out = [];
  for (const run of runs) out.push(...(await runLoops(env, taskQueue, [run])));
  return out;
}

export const runId = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

/**
 * The floor: the same loop, in-process, without Temporal. waveloop's own `callModel` and `runTool`
 * activity functions (in a mock activity context), the transcript kept in memory, each wave's calls
 * run with Promise.all. What is left between two model calls is HTTP, JSON and the tool itself.
 */
export async function runFloor(env: BenchEnv, goal: string, maxIterations: number): Promise<void> {
  let messages: ChatMessage[] = [];
  const activities = createActivities({
    registry: new Registry([benchTool], [defineAgent({ name: 'default', system: 'x' })]),
    openai: createModelClient({ baseURL: env.model.baseURL, apiKey: 'bench' }),
    defaults: { model: 'bench-model' },
    readTranscript: async (_workflowId, _runId, count) => messages.slice(0, count),
  });
  messages = [
    { role: 'system', content: 'You are a benchmark agent. Call the tools as asked.' },
    { role: 'user', content: goal },
  ];
  for (let iteration = 1; iteration <= maxIterations; iteration++) {
    // A model call's attempt may take as long as a worker's default allows (the mock's default is 1 s).
    const reply = (await new MockActivityEnvironment({
      startToCloseTimeoutMs: SETTINGS.modelTimeoutSeconds.default * 1000,
    }).run(activities.callModel, {
      workflowId: 'floor',
      runId: 'floor',
      model: 'bench-model',
      tools: ['bench_tool'],
      planner: 'native' as const,
      iteration,
      transcript: { count: messages.length, from: 0, messages },
    })) as ModelCallOutput;
    messages.push(reply.message);
    const calls = reply.message.tool_calls ?? [];
    if (calls.length === 0) return;
    const outputs = await Promise.all(
      calls.map(
        (call) =>
          new MockActivityEnvironment().run(activities.runTool, {
            workflowId: 'floor',
            toolCallId: call.id,
            startedBy: 'bench',
            name: call.function.name,
            args: JSON.parse(call.function.arguments) as Record<string, unknown>,
          }) as Promise<ToolCallOutput>,
      ),
    );
    calls.forEach((call, i) =>
      messages.push({ role: 'tool', tool_call_id: call.id, content: (outputs[i] as { content: string }).content }),
    );
  }
}
