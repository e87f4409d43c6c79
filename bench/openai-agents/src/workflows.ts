import { Agent } from '@openai/agents-core';
import { activityAsTool, TemporalOpenAIRunner } from '@temporalio/openai-agents/workflow';
import type * as activities from './activities';

const benchTool = activityAsTool<typeof activities.bench_tool>(
  {
    name: 'bench_tool',
    description: 'A benchmark tool: waits sleepMs milliseconds and returns bytes characters.',
    parameters: {
      type: 'object',
      properties: { sleepMs: { type: 'integer', minimum: 0 }, bytes: { type: 'integer', minimum: 0 }, call: { type: 'integer' } },
      required: ['sleepMs', 'bytes'],
      additionalProperties: false,
    },
  },
  // waveloop's tool defaults: one minute per attempt, three attempts.
  { startToCloseTimeout: '1 minute', retryPolicy: { maximumAttempts: 3 } },
);

/** The agent loop of Temporal's integration: one model activity per turn, tools as activities. */
export async function benchAgent(input: { goal: string; maxTurns: number }): Promise<string> {
  const agent = new Agent({
    name: 'Bench',
    instructions: 'You are a benchmark agent. Call the tools as asked.',
    model: 'bench-model',
    tools: [benchTool],
  });
  const runner = new TemporalOpenAIRunner();
  const result = await runner.run(agent, input.goal, { maxTurns: input.maxTurns, runConfig: { tracingDisabled: true } });
  return String(result.finalOutput ?? '');
}
