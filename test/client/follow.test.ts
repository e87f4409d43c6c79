import { describe, expect, it } from 'vitest';
import type { WaveloopClient } from '../../src/client/waveloop-client';
import { followRun } from '../../src/client/follow';
import type { AgentLoopResult, RunProgress } from '../../src/contract/agent-loop';
import { streamedText, type StreamedText } from '../../src/contract/streaming';
import { eventually } from '../support/wait';

const PROGRESS: RunProgress = {
  status: 'running',
  iteration: 1,
  maxIterations: 20,
  phase: 'model',
  agent: 'default',
  model: 'fake-model',
  waves: [],
  usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  pendingQuestions: [],
  pendingApprovals: [],
};

describe('followRun: a streamed reply with thinking', () => {
  it("followRun: the model's thinking is printed first, on a line of its own, then the text", async () => {
    let stream: StreamedText | undefined;
    // Only what followRun asks of a client: the run's progress and its model call in flight.
    const client = { progress: async () => PROGRESS, modelCall: async () => stream && { attempt: 1, stream } } as unknown as WaveloopClient;
    let printed = '';
    const follow = followRun(client, 'run-1', { line: (line) => (printed += `${line}\n`), text: (text) => (printed += text) });

    stream = streamedText(1, 1, '', 'Six times');
    await eventually(() => printed, (out) => out.endsWith('Six times'));
    stream = streamedText(1, 1, '', 'Six times seven.');
    await eventually(() => printed, (out) => out.endsWith('seven.'));
    stream = streamedText(1, 1, 'Forty', 'Six times seven.');
    await eventually(() => printed, (out) => out.endsWith('Forty'));
    await follow.stop({ status: 'completed', answer: 'Forty-two.', iterations: 1, waves: [], usage: PROGRESS.usage } satisfies AgentLoopResult);

    expect(printed).toBe('(iteration 1) thinking: Six times seven.\n(iteration 1) Forty-two.\n');
  });
});
