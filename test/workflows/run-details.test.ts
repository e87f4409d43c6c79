import { describe, expect, it } from 'vitest';
import type { RunProgress } from '../../src/contract/agent-loop';
import { runDetails } from '../../src/workflows/run-details';

const progress: RunProgress = {
  status: 'waiting_for_approval',
  iteration: 1,
  maxIterations: 20,
  phase: 'tools',
  agent: 'default',
  model: 'm',
  waves: [],
  usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  pendingQuestions: [],
  startedBy: 'alice',
  startedAt: '2026-11-26T09:00:00.000Z',
  pendingApprovals: [
    {
      callId: 'call_large',
      tool: 'pay',
      args: { supplier: 'Initrode', amount: 9000 },
      iteration: 1,
      since: '2026-11-26T10:00:00.000Z',
      reason: 'a payment of 9000 USD is over 1,000 USD',
      deadline: '2026-11-26T14:00:00.000Z',
      onTimeout: 'deny',
      quorum: 1,
      fourEyes: false,
      approvals: [],
    },
  ],
};

describe('runDetails', () => {
  it("a call waiting for approval shows why (its rule's reason), its deadline and what the deadline decides", () => {
    expect(runDetails({ progress, workflowId: 'pay-17' })).toBe(
      [
        '**Waiting for a person** · iteration 1 of 20 · started by alice',
        'Approval needed: wave 1 · pay() with arguments `{"supplier":"Initrode","amount":9000}`',
        'Why: a payment of 9000 USD is over 1,000 USD',
        'Undecided by 2026-11-26T14:00:00.000Z, it is denied.',
        'Approve with `waveloop approve pay-17 call_large` or deny with `waveloop deny pay-17 call_large --reason "…"`',
      ].join('\n\n'),
    );
  });

  it('a model call under a model rate limit: the details name the limit and where a held call shows', () => {
    const waiting: RunProgress = {
      ...progress,
      status: 'running',
      phase: 'model',
      pendingApprovals: [],
      model: 'gpt-4o-mini',
      modelRateLimit: { requestsPerMinute: 120, taskQueue: 'waveloop-model' },
    };
    expect(runDetails({ progress: waiting, workflowId: 'r-1' })).toBe(
      "**Running** · iteration 1 of 20 · waiting for the model (gpt-4o-mini), or for the model's rate limit: " +
        '120 calls a minute for every run of task queue `waveloop-model` (a call the limit holds back shows as Scheduled in Pending Activities)',
    );
  });

  it('a run handed over to another agent says which agent it runs as now, and since when', () => {
    const handedOver: RunProgress = {
      ...progress,
      status: 'running',
      phase: 'model',
      pendingApprovals: [],
      agent: 'billing',
      handoffs: [{ from: 'triage', to: 'billing', iteration: 2, callId: 'call_2' }],
    };
    expect(runDetails({ progress: handedOver, workflowId: 'r-2' })).toContain(
      'Runs as billing: triage handed over at iteration 2',
    );
  });
});
