import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { PendingDecision } from '../../src/client/pending';
import type { RunStatusReport } from '../../src/client/runs';
import type { WaveloopClient } from '../../src/client/waveloop-client';
import type { PendingApproval, RunProgress } from '../../src/contract/agent-loop';
import { FailureType } from '../../src/contract/errors';
import { createHttpApp } from '../../src/http';
import { decisionCard, decisionId } from '../../src/http/page/decision-view';
import { pendingVersion, waitingSection } from '../../src/http/page/inbox-view';
import { runBody } from '../../src/http/page/run-view';
import { peopleWith } from '../support/people';

/**
 * The inbox page's sign-in and what it renders, without a socket (`app.request`). The client is never
 * reached by the first app: a request that got past the checks to a route would fail the test. A
 * decision's answer is tested against a fake client's `runs`.
 */

const app = createHttpApp({
  client: {} as WaveloopClient,
  people: peopleWith([{ name: 'alice', token: 'alice-token' }]),
  log: () => {},
});
const cookie = 'waveloop_token=alice-token';

describe('the inbox page', () => {
  it("/assets/ serves only its own files: an object's inherited names are 404, not 500", async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'nothing.js']) {
      const response = await app.request(`/assets/${name}`, { headers: { cookie } });
      expect(response.status, name).toBe(404);
    }
    const css = await app.request('/assets/inbox.css', { headers: { cookie } });
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
  });

  it('the printed address signs a browser in: the token goes into an HttpOnly, SameSite=Strict cookie and out of the address', async () => {
    const signedIn = await app.request('/runs?status=failed&token=alice-token');
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/runs?status=failed');
    expect(signedIn.headers.get('set-cookie')).toMatch(
      /^waveloop_token=alice-token; Path=\/; HttpOnly; SameSite=Strict$/,
    );

    const wrong = await app.request('/?token=guess');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect(await wrong.text()).toContain('That token is not one this server knows.');
  });

  it('without a token a page says how to sign in; the API answers 401 JSON', async () => {
    const page = await app.request('/');
    expect(page.status).toBe(401);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const signIn = await page.text();
    expect(signIn).toContain('Open the address <code>waveloop serve</code> printed');
    // A token pasted there is not shown to whoever looks at the screen.
    expect(signIn).toContain('<input type="password" name="token" aria-label="Token"');
    const api = await app.request('/api/pending');
    expect(api.status).toBe(401);
    expect(await api.json()).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('the cookie works the pages only from the page itself (HX-Request), and reads the API but never changes it', async () => {
    const form = { method: 'POST', body: new URLSearchParams({ decision: 'approve' }) };
    // A form of another site cannot send HX-Request: refused before anything is decided.
    const forged = await app.request('/runs/r/approvals/c', { ...form, headers: { cookie } });
    expect(forged.status).toBe(401);
    const apiWrite = await app.request('/api/runs/r/approvals/c', {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', 'hx-request': 'true' },
      body: JSON.stringify({ approve: true }),
    });
    expect(apiWrite.status).toBe(401);
    const assets = await app.request('/assets/htmx.js');
    expect(assets.status).toBe(200);
    expect(assets.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await assets.text()).toContain('htmx');
    expect((await app.request('/assets/nothing.js')).status).toBe(404);
  });

  it('escapes everything a run holds: goals, arguments, reasons, results, answers', async () => {
    const evil = '<img src=x onerror="alert(1)">';
    const decision: PendingDecision = {
      workflowId: `run-${evil}`,
      kind: 'approval',
      callId: 'call_1',
      tool: `tool${evil}`,
      args: { note: evil },
      reason: evil,
      goal: evil,
      waitingSince: new Date().toISOString(),
      command: '',
    };
    const report: RunStatusReport = {
      workflowId: 'r',
      runId: 'x',
      workflowType: 'agentLoop',
      execution: 'COMPLETED',
      startTime: new Date(),
      goal: evil,
      result: {
        status: 'completed',
        answer: evil,
        iterations: 1,
        usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
        waves: [{ iteration: 1, calls: [{ id: 'c', tool: 'get', args: { q: evil }, ok: true, result: evil }] }],
        output: { html: evil },
      },
    };
    const viewer = { name: 'alice' };
    for (const rendered of [
      String(await decisionCard(decision, { viewer })),
      String(await runBody(report, undefined, viewer)),
    ]) {
      expect(rendered).not.toContain('<img');
      expect(rendered).toContain('&lt;img src=x onerror=');
    }
  });

  it("a run's page while a call waits: its wave counts the open call and says what it waits for, under what the model said", async () => {
    const waiting: RunProgress = {
      status: 'waiting_for_approval',
      iteration: 3,
      maxIterations: 20,
      phase: 'tools',
      agent: 'back-office',
      model: 'm',
      waves: [{ iteration: 1, said: 'Let me find Bob first.', calls: [] }],
      settling: {
        iteration: 3,
        said: 'Now I move Bob to EPAM.',
        calls: [{ id: 'c2', tool: 'get_user', args: { id: 2 }, ok: true, result: 'Bob' }],
        open: [
          { id: 'c3', tool: 'update_user' },
          { id: 'c4', tool: 'calculator' },
        ],
      },
      usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
      pendingQuestions: [],
      pendingApprovals: [
        {
          callId: 'c3',
          tool: 'update_user',
          args: { id: 2 },
          iteration: 3,
          since: '2026-11-22T10:00:00Z',
          quorum: 1,
          fourEyes: false,
          approvals: [],
        },
      ],
      startedBy: 'alice',
      startedAt: '2026-11-22T09:59:00Z',
    };
    const report: RunStatusReport = {
      workflowId: 'r',
      runId: 'x',
      workflowType: 'agentLoop',
      execution: 'RUNNING',
      startTime: new Date(),
      goal: 'Move Bob',
      progress: waiting,
    };
    const words = String(await runBody(report, undefined, { name: 'bob' }))
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ');
    expect(words).toContain('Iteration 3: 3 calls, 2 open Now I move Bob to EPAM.');
    expect(words).toContain('update_user waits for approval');
    expect(words).toContain('calculator running');
    expect(words).toContain('Iteration 1: 0 calls Let me find Bob first.');
    // Ended: the model's remarks stay with their waves, and a handoff is named.
    const ended: RunStatusReport = {
      ...report,
      execution: 'COMPLETED',
      progress: undefined,
      result: {
        status: 'completed',
        answer: 'Moved.',
        iterations: 3,
        usage: waiting.usage,
        waves: [{ iteration: 3, said: 'Now I move Bob to EPAM.', calls: [] }],
        handoffs: [{ from: 'triage', to: 'back-office', iteration: 2, callId: 'c1' }],
      },
    };
    const after = String(await runBody(ended, undefined, { name: 'bob' }))
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ');
    expect(after).toContain('Iteration 3: 0 calls Now I move Bob to EPAM.');
    expect(after).toContain('Handed over: triage → back-office (iteration 2)');
  });

  describe("an approval's card: what a person reads before deciding, and buttons only for who may decide", () => {
    const now = new Date('2026-11-22T10:05:00Z');
    const payment: PendingDecision = {
      workflowId: 'pay-1',
      kind: 'approval',
      callId: 'call_1',
      tool: 'update_user',
      args: { id: 2, company: 'EPAM' },
      reason: 'changes a customer record',
      description: "Changes a user's company.",
      approvers: { label: 'finance', names: ['alice', 'bob', 'dave'] },
      quorum: 2,
      approvals: [],
      fourEyes: true,
      preview: { text: 'Bob Smith (user 2)', changes: [{ field: 'company', before: 'Initech', after: 'EPAM' }] },
      startedBy: 'alice',
      startedAt: '2026-11-22T10:02:00Z',
      agent: 'payments',
      waitingSince: '2026-11-22T10:04:00Z',
      command: '',
    };
    const card = async (decision: PendingDecision, viewer: string) => {
      const text = String(await decisionCard(decision, { viewer: { name: viewer }, now }));
      const words = text
        .replace(/<[^>]+>/g, '')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/\s+/g, ' ');
      return { html: text, words };
    };

    it('shows the description, the reason, the starter and when, the agent, the preview, who may decide and the quorum', async () => {
      const { words } = await card(payment, 'bob');
      expect(words).toContain("Changes a user's company.");
      expect(words).toContain('changes a customer record');
      expect(words).toContain('started by alice, 3 min ago · agent payments');
      expect(words).toContain('Bob Smith (user 2)');
      expect(words).toContain('company: Initech → EPAM');
      expect(words).toContain('needs finance · 0 of 2 · four eyes');
    });

    it('an approver gets Approve, Deny and the edit; someone outside the approvers sees "needs finance" and no form', async () => {
      const bob = await card(payment, 'bob');
      expect(bob.html).toContain('value="approve"');
      expect(bob.html).toContain('value="deny"');
      expect(bob.html).toContain('value="edit"');
      const carol = await card(payment, 'carol');
      expect(carol.html).not.toContain('<form');
      expect(carol.html).not.toContain('<button');
      expect(carol.words).toContain('needs finance');
      expect(carol.words).toContain('Only finance may decide it, not you (carol).');
    });

    it('under four eyes the starter may deny but not approve; one who approved may not approve again, and sees how many more it needs', async () => {
      const alice = await card(payment, 'alice');
      expect(alice.html).not.toContain('value="approve"');
      expect(alice.html).not.toContain('value="edit"');
      expect(alice.html).toContain('value="deny"');
      expect(alice.words).toContain('You started this run: under four eyes another person must approve it.');

      const approvedByBob = { ...payment, approvals: [{ by: 'bob', at: '2026-11-22T10:04:30Z' }] };
      const bob = await card(approvedByBob, 'bob');
      expect(bob.html).not.toContain('value="approve"');
      expect(bob.html).toContain('value="deny"');
      expect(bob.words).toContain('You approved; waits for 1 more.');
      expect(bob.words).toContain('1 of 2: bob');
      expect((await card(approvedByBob, 'dave')).html).toContain('value="approve"');
    });

    it("a preview that failed says so; edited arguments show as edited, with the model's own", async () => {
      const failed = await card({ ...payment, preview: { error: 'the database is locked' } }, 'bob');
      expect(failed.html).toMatch(/class="preview preview-error" role="note">\s*no preview: the database is locked/);
      const edited = await card(
        { ...payment, args: { id: 2, company: 'EPAM Systems' }, originalArgs: payment.args },
        'bob',
      );
      expect(edited.words).toContain('edited a person changed the arguments');
      expect(edited.html).toContain('class="original-args"');
      expect(edited.words).toContain('"company": "EPAM Systems"');
    });

    it('escapes what the rule, the tool and the preview say', async () => {
      const evil = '<img src=x onerror="alert(1)">';
      const { html } = await card(
        {
          ...payment,
          description: evil,
          approvers: { label: evil, names: [evil] },
          preview: { text: evil, changes: [{ field: evil, before: evil, after: evil }] },
          startedBy: evil,
          agent: evil,
          originalArgs: { evil },
        },
        'carol',
      );
      expect(html).not.toContain('<img');
      expect(html).toContain('&lt;img src=x onerror=');
    });

    it("the inbox's version changes when someone approves or edits, not otherwise, so every open inbox shows the progress", () => {
      const list = { decisions: [payment], unanswered: [] };
      const version = pendingVersion(list);
      expect(pendingVersion({ decisions: [{ ...payment }], unanswered: [] })).toBe(version);
      const approved = { ...payment, approvals: [{ by: 'bob', at: '2026-11-22T10:04:30Z' }] };
      expect(pendingVersion({ decisions: [approved], unanswered: [] })).not.toBe(version);
      const edited = { ...payment, args: { id: 2, company: 'EPAM Systems' } };
      expect(pendingVersion({ decisions: [edited], unanswered: [] })).not.toBe(version);
    });

    it('the inbox renders each card for its viewer, keeping the ids that hx-preserve needs', async () => {
      const list = { decisions: [payment], unanswered: [] };
      const forCarol = String(await waitingSection(list, { name: 'carol' }, now));
      const forBob = String(await waitingSection(list, { name: 'bob' }, now));
      expect(forCarol).not.toContain('value="approve"');
      expect(forBob).toContain('value="approve"');
      expect(forBob).toContain(`id="${decisionId(payment)}-reason"`);
    });
  });

  it("an approval that leaves the quorum unmet answers with the card and its progress; a refusal shows the run's words in the card", async () => {
    const call: PendingApproval = {
      callId: 'call_1',
      tool: 'update_user',
      args: { id: 2, company: 'EPAM' },
      iteration: 1,
      since: new Date().toISOString(),
      approvers: { label: 'finance', names: ['bob', 'dave'] },
      quorum: 2,
      fourEyes: false,
      approvals: [],
    };
    const progress = {
      pendingApprovals: [call],
      pendingQuestions: [],
      waves: [],
      startedBy: 'alice',
    } as unknown as RunProgress;
    const runs = {
      handle: () => ({ describe: async () => ({ status: { name: 'RUNNING' } }) }),
      progress: async () => progress,
      approve: async (_id: string, callId: string, { by }: { by: string }) => {
        if (by === 'carol') {
          const cause = ApplicationFailure.create({
            type: FailureType.DecisionNotAllowed,
            message: 'carol may not decide this call of update_user: it needs finance.',
            nonRetryable: true,
          });
          throw new WorkflowUpdateFailedError('Workflow Update failed', cause);
        }
        call.approvals.push({ by, at: new Date().toISOString() });
        return { callId, tool: call.tool, decided: 'waiting', approvals: call.approvals, quorum: call.quorum };
      },
    };
    const decisions = createHttpApp({
      client: { runs } as unknown as WaveloopClient,
      people: peopleWith([
        { name: 'bob', token: 'bob-inbox-token', groups: ['finance'] },
        { name: 'carol', token: 'carol-inbox-token', groups: ['ops'] },
      ]),
      log: () => {},
    });
    const post = (token: string) =>
      decisions.request('/runs/pay-1/approvals/call_1', {
        method: 'POST',
        headers: { cookie: `waveloop_token=${token}`, 'hx-request': 'true' },
        body: new URLSearchParams({ decision: 'approve' }),
      });

    const bob = await post('bob-inbox-token');
    expect(bob.status).toBe(200);
    const bobs = await bob.text();
    expect(bobs).toContain('class="card decision"');
    expect(bobs).toContain('needs finance · 1 of 2: bob');
    expect(bobs).toContain('You approved; waits for 1 more.');
    expect(bobs).not.toContain('value="approve"');

    const carol = await post('carol-inbox-token');
    expect(carol.status).toBe(403);
    const carols = await carol.text();
    expect(carols).toContain('role="alert">Refused: carol may not decide this call of update_user: it needs finance.');
    expect(carols).not.toContain('<form');
    expect(call.approvals.map((vote) => vote.by)).toEqual(['bob']);
  });
});
