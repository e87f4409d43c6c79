import { describe, expect, it } from 'vitest';
import type { PendingDecision } from '../../src/client/pending';
import type { RunStatusReport } from '../../src/client/runs';
import type { WaveloopClient } from '../../src/client/waveloop-client';
import { createHttpApp } from '../../src/http';
import { decisionCard } from '../../src/http/page/decision-view';
import { runBody } from '../../src/http/page/run-view';
import { peopleWith } from '../support/people';

/**
 * The inbox page's sign-in and what it renders, without a socket (`app.request`). The client is never
 * reached here: a request that got past the checks to a route would fail the test.
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
    expect(await page.text()).toContain('Open the address <code>waveloop serve</code> printed');
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
    for (const rendered of [String(await decisionCard(decision)), String(await runBody(report, undefined))]) {
      expect(rendered).not.toContain('<img');
      expect(rendered).toContain('&lt;img src=x onerror=');
    }
  });
});
