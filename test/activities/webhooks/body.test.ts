import { describe, expect, it } from 'vitest';
import { slackMessage, webhookBody } from '../../../src/activities/webhooks/body';
import { WebhookUrlSchema } from '../../../src/contract/webhooks/url';
import { clipText, isSlackUrl, type WebhookNotice } from '../../../src/contract/webhooks/webhooks';

const waiting: WebhookNotice = {
  event: 'waiting_for_approval',
  workflowId: 'pay run/42',
  runId: 'r-1',
  goal: 'Pay the open invoices',
  pending: {
    callId: 'call_1',
    tool: 'pay',
    args: { supplier: '<Initrode>', amount: 9000 },
    reason: 'over 1,000 USD',
    deadline: '2026-11-23T10:00:00.000Z',
  },
  root: { workflowId: 'tree-7' },
  at: '2026-11-22T10:00:00.000Z',
};

describe('webhookBody', () => {
  it('webhookBody: the notice with the inbox links of the run and of its tree (ids URL-encoded); without an inbox URL, no links', () => {
    expect(webhookBody(waiting, 'http://inbox.example.com:8080/')).toEqual({
      event: 'waiting_for_approval',
      workflowId: 'pay run/42',
      runId: 'r-1',
      goal: 'Pay the open invoices',
      pending: waiting.pending,
      link: 'http://inbox.example.com:8080/runs/pay%20run%2F42',
      root: { workflowId: 'tree-7', link: 'http://inbox.example.com:8080/runs/tree-7' },
      at: '2026-11-22T10:00:00.000Z',
    });
    const unlinked = webhookBody(waiting, undefined);
    expect(unlinked).not.toHaveProperty('link');
    expect(unlinked.root).toEqual({ workflowId: 'tree-7' });
  });

  it('clipText: a goal or answer longer than 1,000 characters is cut, ending with an ellipsis', () => {
    expect(clipText('short')).toBe('short');
    const clipped = clipText('x'.repeat(5_000));
    expect(clipped).toHaveLength(1_000);
    expect(clipped.endsWith('…')).toBe(true);
  });
});

describe('slackMessage', () => {
  it('slackMessage: { text, blocks } with what happened, the goal, the tool with its arguments, the reason, the deadline and the link, escaped for Slack', () => {
    const message = slackMessage(webhookBody(waiting, 'http://inbox.example.com'));
    expect(message.text).toBe(
      'A call waits for approval · pay run/42: Pay the open invoices http://inbox.example.com/runs/pay%20run%2F42',
    );
    expect(message.blocks).toEqual([
      { type: 'section', text: { type: 'mrkdwn', text: '*A call waits for approval · pay run/42*' } },
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: [
            '*Goal:* Pay the open invoices',
            '*Tool:* `pay` {"supplier":"&lt;Initrode&gt;","amount":9000}',
            '*Reason:* over 1,000 USD',
            '*Decided by its deadline at:* 2026-11-23T10:00:00.000Z',
          ].join('\n'),
        },
      },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: '<http://inbox.example.com/runs/pay%20run%2F42|Open in the inbox>' },
      },
    ]);
  });

  it('slackMessage: a question, an ended run and a failed one say theirs', () => {
    const base = { workflowId: 'w', runId: 'r', goal: 'g', at: 'now' };
    const asked = slackMessage({ ...base, event: 'waiting_for_input', pending: { callId: 'c', question: 'Which?' } });
    expect(asked.blocks[1]).toMatchObject({ text: { text: '*Goal:* g\n*Question:* Which?' } });
    const ended = slackMessage({ ...base, event: 'completed', status: 'max_iterations', answer: 'Partly done.' });
    expect(ended.text).toBe('A run ended · w: g');
    expect(ended.blocks[1]).toMatchObject({
      text: { text: '*Goal:* g\n*Status:* max_iterations\n*Answer:* Partly done.' },
    });
    const failed = slackMessage({ ...base, event: 'failed', status: 'failed', error: 'The model kept failing' });
    expect(failed.blocks[1]).toMatchObject({ text: { text: '*Goal:* g\n*Error:* The model kept failing' } });
  });

  it('isSlackUrl: a slack: URL or an incoming webhook of hooks.slack.com', () => {
    expect(isSlackUrl('https://hooks.slack.com/services/T0/B0/x')).toBe(true);
    expect(isSlackUrl('slack:http://127.0.0.1:9999/x')).toBe(true);
    expect(isSlackUrl('https://example.com/hooks.slack.com')).toBe(false);
  });
});

describe('WebhookUrlSchema', () => {
  it('WebhookUrlSchema: an http(s) URL or slack:<url>; anything else is refused, naming it', () => {
    for (const ok of ['https://example.com/h', 'http://127.0.0.1:1/x', 'slack:https://hooks.slack.com/services/x'])
      expect(WebhookUrlSchema.parse(ok), ok).toBe(ok);
    for (const bad of ['example.com/h', 'ftp://example.com/h', 'slack:nothing', 'javascript:alert(1)']) {
      const parsed = WebhookUrlSchema.safeParse(bad);
      expect(parsed.success, bad).toBe(false);
      expect(parsed.error?.issues[0].message, bad).toContain(`not "${bad}"`);
    }
  });
});
