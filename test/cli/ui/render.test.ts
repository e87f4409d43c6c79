import { describe, expect, it } from 'vitest';
import { renderProgress, renderResult, renderResultSummary } from '../../../src/cli/ui/render';
import type { AgentLoopResult, RunProgress } from '../../../src/contract/agent-loop';

describe('renderProgress (waveloop status)', () => {
  it('shows the calls of the running wave that have settled, and what waits for a person', () => {
    const progress: RunProgress = {
      status: 'waiting_for_approval',
      iteration: 3,
      maxIterations: 20,
      phase: 'tools',
      agent: 'back-office',
      model: 'gpt-4o-mini',
      waves: [
        { iteration: 1, calls: [{ id: 'c1', tool: 'search_users', args: { name: 'Bob' }, ok: true, result: '[]' }] },
      ],
      settling: {
        iteration: 3,
        calls: [{ id: 'c2', tool: 'calculator', args: { expression: '6*7' }, ok: true, result: '42' }],
        open: [],
      },
      usage: { promptTokens: 300, completionTokens: 30, totalTokens: 330 },
      pendingQuestions: [],
      startedBy: 'alice',
      startedAt: '2026-11-26T08:59:00.000Z',
      pendingApprovals: [
        {
          callId: 'c3',
          tool: 'update_user',
          args: { id: 2, company: 'EPAM' },
          iteration: 3,
          since: '2026-11-26T09:00:00.000Z',
          quorum: 1,
          fourEyes: false,
          approvals: [],
        },
      ],
    };

    expect(renderProgress(progress)).toEqual([
      'Status:     waiting_for_approval',
      'Agent:      back-office (model gpt-4o-mini)',
      'Started by: alice, 2026-11-26T08:59:00.000Z',
      'Iteration:  3 of 20 (phase: tools)',
      'Waves:      1, 1 tool calls',
      'Settled:    wave 3 · calculator(expression=6*7) → 42 (its wave still runs)',
      'Tokens:     330 (prompt 300, completion 30)',
      'Approval:   wave 3 · update_user(id=2, company=EPAM) (call c3)',
    ]);
  });
});

describe('renderProgress of a forked run', () => {
  it('counts its waves since the fork, and says whose the earlier ones are', () => {
    const progress: RunProgress = {
      status: 'waiting_for_approval',
      iteration: 3,
      maxIterations: 20,
      phase: 'tools',
      agent: 'back-office',
      model: 'gpt-4o-mini',
      waves: [],
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      pendingQuestions: [],
      pendingApprovals: [],
      startedBy: 'alice',
      startedAt: '2026-11-26T08:59:00.000Z',
      forkedFrom: { workflowId: 'waveloop-1a2b3c4d', runId: 'r1', iteration: 2 },
    };
    expect(renderProgress(progress)).toContain(
      "Waves:      0, 0 tool calls since the fork at iteration 2 (the waves before it are waveloop-1a2b3c4d's)",
    );
  });
});

describe('renderResult and renderResultSummary: estimated usage', () => {
  it('renderResult: tokens an endpoint did not report are printed as estimated', () => {
    const result: AgentLoopResult = {
      status: 'completed',
      answer: 'Hi.',
      iterations: 1,
      waves: [],
      usage: { promptTokens: 50, completionTokens: 2, totalTokens: 52, estimated: true },
    };
    expect(renderResult(result).split('\n')[0]).toBe('Answer (1 iteration, 52 tokens, estimated):');
    expect(renderResultSummary(result).at(-1)).toBe('Tokens:     52 (prompt 50, completion 2) (estimated)');
    expect(
      renderResult({ ...result, usage: { promptTokens: 50, completionTokens: 2, totalTokens: 52 } }).split('\n')[0],
    ).toBe('Answer (1 iteration, 52 tokens):');
  });
});
