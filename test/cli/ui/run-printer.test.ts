import { describe, expect, it } from 'vitest';
import { RunPrinter } from '../../../src/cli/ui/run-printer';
import { followRun, type RunReader } from '../../../src/client/follow';
import type { AgentLoopResult, RunProgress } from '../../../src/contract/agent-loop';
import { streamedText, type StreamedText } from '../../../src/contract/model/streaming';
import { eventually } from '../../support/wait';

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
  startedBy: 'alice',
  startedAt: '2026-11-27T10:00:00.000Z',
};

/** Follows a run that `reader` describes, printed the way `waveloop follow` prints it. */
function printed(reader: RunReader) {
  let out = '';
  const printer = new RunPrinter('run-1', { line: (line) => (out += `${line}\n`), text: (text) => (out += text) });
  const follow = followRun(reader, 'run-1', { onEvent: (event, signal) => printer.show(event, signal), stream: true });
  return {
    text: () => out,
    async stop(result?: AgentLoopResult) {
      await follow.stop(result);
      printer.end();
    },
  };
}

describe('RunPrinter: a followed run as waveloop follow prints it', () => {
  it("the model's thinking is printed first, on a line of its own, then the text", async () => {
    let stream: StreamedText | undefined;
    const run = printed({ progress: async () => PROGRESS, modelCall: async () => stream && { attempt: 1, stream } });

    stream = streamedText(1, 1, '', 'Six times');
    await eventually(run.text, (out) => out.endsWith('Six times'));
    stream = streamedText(1, 1, '', 'Six times seven.');
    await eventually(run.text, (out) => out.endsWith('seven.'));
    stream = streamedText(1, 1, 'Forty', 'Six times seven.');
    await eventually(run.text, (out) => out.endsWith('Forty'));
    await run.stop({
      status: 'completed',
      answer: 'Forty-two.',
      iterations: 1,
      waves: [],
      usage: PROGRESS.usage,
    } satisfies AgentLoopResult);

    expect(run.text()).toBe('(iteration 1) thinking: Six times seven.\n(iteration 1) Forty-two.\n');
  });

  it('a model call tried again is said once, with why and the attempt; a call that waits for approval, with the command that decides it', async () => {
    const approval = {
      callId: 'call-7',
      tool: 'update_user',
      args: { id: 1 },
      iteration: 2,
      since: '2026-11-26T09:00:00.000Z',
      quorum: 1,
      fourEyes: false,
      approvals: [],
    };
    const progress: RunProgress = { ...PROGRESS, iteration: 2, pendingApprovals: [approval] };
    const run = printed({
      progress: async () => progress,
      modelCall: async () => ({ attempt: 2, maximumAttempts: 3, lastFailure: 'timed out (start-to-close)' }),
    });
    await eventually(run.text, (out) => out.includes('attempt 2 of 3'));
    await run.stop();

    expect(run.text().split('\n')).toEqual([
      'Approval needed: wave 2 · update_user(id=1)',
      '  decide with: waveloop approve run-1 call-7   (or: waveloop deny run-1 call-7 --reason "…")',
      '(iteration 2) the model call failed: timed out (start-to-close); attempt 2 of 3',
      '',
    ]);
  });
});
