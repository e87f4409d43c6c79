import { describe, expect, it } from 'vitest';
import type { AuditQuery, AuditStore } from '../../src/audit/store';
import type { WaveloopClient } from '../../src/client/waveloop-client';
import type { AuditEntry, AuditRecord } from '../../src/contract/audit/records';
import { createHttpApp } from '../../src/http';
import { peopleWith } from '../support/people';

/**
 * The inbox's Decided view, "Recently decided" under the waiting list, and `GET /api/decided`,
 * without a socket (`app.request`), on a fake audit store: an array the store's `list` filters as the
 * real stores do (and which remembers what it was asked).
 */

const cookie = 'waveloop_token=alice-token';
const people = peopleWith([{ name: 'alice', token: 'alice-token' }]);
const client = { runs: { pending: async () => ({ decisions: [], unanswered: [] }) } } as unknown as WaveloopClient;

const ENTRIES: AuditEntry[] = [
  {
    id: 'r1/started',
    kind: 'run_started',
    at: '2026-11-22T09:59:00Z',
    workflowId: 'r1',
    person: 'alice',
    details: { goal: 'g' },
  },
  {
    id: 'r1/decision/c1/1',
    kind: 'decision',
    at: '2026-11-22T10:00:00Z',
    workflowId: 'r1',
    person: 'bob',
    tool: 'update_user',
    callId: 'c1',
    details: {
      decision: 'approve',
      args: { id: 2, company: 'EPAM' },
      approvals: 1,
      quorum: 2,
      ruleReason: 'changes a customer',
      approvers: 'finance',
    },
  },
  {
    id: 'r1/refused/c1/x',
    kind: 'decision_refused',
    at: '2026-11-22T10:01:00Z',
    workflowId: 'r1',
    person: 'carol',
    callId: 'c1',
    details: { decision: 'approve', why: 'carol may not decide this call of update_user: it needs finance.' },
  },
  {
    id: 'r1/decision/c1/2',
    kind: 'decision',
    at: '2026-11-22T10:02:00Z',
    workflowId: 'r1',
    person: 'dave',
    tool: 'update_user',
    callId: 'c1',
    details: {
      decision: 'approve',
      args: { id: 2, company: 'EPAM Systems' },
      edited: true,
      originalArgs: { id: 2, company: 'EPAM' },
      approvals: 2,
      quorum: 2,
    },
  },
  {
    id: 'r2/decision/c9/1',
    kind: 'decision',
    at: '2026-11-22T10:03:00Z',
    workflowId: 'r2 <b>',
    person: 'bob',
    tool: 'send_email',
    callId: 'c9',
    details: {
      decision: 'deny',
      args: { body: '<script>alert(1)</script>' },
      reason: 'not <i>now</i>',
      approvals: 0,
      quorum: 1,
    },
  },
  {
    id: 'r2/ended',
    kind: 'run_ended',
    at: '2026-11-22T10:04:00Z',
    workflowId: 'r2 <b>',
    details: { status: 'completed' },
  },
];

/** A store of `entries` whose `list` filters as the real ones do, newest `limit` in chain order. */
function fakeStore(entries: AuditEntry[] = ENTRIES): AuditStore & { asked: AuditQuery[] } {
  const records: AuditRecord[] = entries.map((entry, i) => ({ ...entry, seq: i + 1, prevHash: '', hash: '' }));
  const asked: AuditQuery[] = [];
  return {
    where: 'fake',
    asked,
    append: async () => {
      throw new Error('the view never writes');
    },
    list: async (query = {}) => {
      asked.push(query);
      const kinds = query.kind === undefined ? undefined : ([] as string[]).concat(query.kind);
      const found = records.filter(
        (r) =>
          (!kinds || kinds.includes(r.kind)) &&
          (!query.person || r.person === query.person) &&
          (!query.tool || r.tool === query.tool) &&
          (!query.workflowId || r.workflowId === query.workflowId),
      );
      return query.limit ? found.slice(-query.limit) : found;
    },
    all: async function* () {
      yield* records;
    },
    close: async () => {},
  };
}

function appWith(audit?: AuditStore) {
  return createHttpApp({ client, people, log: () => {}, ...(audit ? { audit } : {}) });
}

/** `page` with its white space folded, as a person reads it. */
function folded(page: string): string {
  return page.replace(/\s+/g, ' ');
}

/** The page's rows: each row's text, spaces folded. */
function rows(page: string): string[] {
  return [...page.matchAll(/<tr class="decided-record[^"]*"[^>]*>([\s\S]*?)<\/tr>/g)].map((m) =>
    m[1]!
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

describe('the Decided view', () => {
  it('lists decisions and refused attempts newest first: when, who, the verdict, quorum, tool, arguments, reason, run', async () => {
    const store = fakeStore();
    const response = await appWith(store).request('/decided', { headers: { cookie } });
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(store.asked).toEqual([{ kind: ['decision', 'decision_refused'], limit: 200 }]);

    const listed = rows(page);
    expect(listed).toHaveLength(4);
    expect(listed[0]).toMatch(/^2026-11-22 10:03:00 UTC .* bob denied send_email/);
    expect(listed[1]).toMatch(/dave approved edited 2 of 2 update_user/);
    expect(listed[1]).toContain('EPAM Systems');
    expect(listed[1]).toContain("The model's arguments");
    expect(listed[2]).toMatch(/carol refused \(tried to approve\)/);
    expect(listed[2]).toContain('carol may not decide this call of update_user: it needs finance.');
    expect(listed[3]).toMatch(/bob approved 1 of 2 update_user/);
    expect(listed[3]).toContain('rule: changes a customer');
    expect(listed[3]).toContain('needs finance');
    expect(page).toContain('<tr class="decided-record refused" data-kind="decision_refused">');
    expect(page).toContain('href="/runs/r1"');
    // A quorum of one says no "1 of 1".
    expect(listed[0]).not.toContain('of 1');
    expect(folded(page)).toContain('The page lists the newest 200: search to narrow it');
    expect(page).toMatch(/<a href="\/decided">Decided<\/a\s*>/);
  });

  it('escapes what the records hold: arguments, reasons and run ids are text, never HTML', async () => {
    const page = await (await appWith(fakeStore()).request('/decided', { headers: { cookie } })).text();
    expect(page).not.toContain('<script>alert(1)</script>');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('not &lt;i&gt;now&lt;/i&gt;');
    expect(page).toContain('href="/runs/r2%20%3Cb%3E"');
    expect(page).toContain('r2 &lt;b&gt;');
    expect(page).not.toContain('<b>');
  });

  it("searches by person, tool and run with the store's own query; the form keeps what was searched; empty fields search nothing", async () => {
    const store = fakeStore();
    const app = appWith(store);
    const bob = await (await app.request('/decided?person=bob&tool=&run=', { headers: { cookie } })).text();
    expect(store.asked.at(-1)).toEqual({ kind: ['decision', 'decision_refused'], limit: 200, person: 'bob' });
    expect(rows(bob).map((row) => row.match(/UTC .*? ago (\w+)/)?.[1])).toEqual(['bob', 'bob']);
    expect(bob).toMatch(/<input type="search" name="person" value="bob"/);
    expect(folded(bob)).toContain('2 decisions by bob, newest first');
    expect(bob).toContain('<a href="/decided">Show all</a>');

    const tool = await (await app.request('/decided?tool=update_user&run=r1', { headers: { cookie } })).text();
    expect(store.asked.at(-1)).toMatchObject({ tool: 'update_user', workflowId: 'r1' });
    expect(rows(tool)).toHaveLength(2);

    const nobody = await (await app.request('/decided?person=%20zed%20', { headers: { cookie } })).text();
    expect(store.asked.at(-1)).toMatchObject({ person: 'zed' });
    expect(rows(nobody)).toEqual([]);
    expect(folded(nobody)).toContain('No decisions by zed in the audit trail.');
  });

  it('without an audit store the page says the server keeps none, and the API answers 404', async () => {
    const app = appWith();
    const page = await (await app.request('/decided', { headers: { cookie } })).text();
    expect(page).toContain('This server keeps no audit trail');
    expect(page).not.toContain('<form method="get" action="/decided"');
    const inbox = await (await app.request('/', { headers: { cookie } })).text();
    expect(inbox).not.toContain('Recently decided');
    const api = await app.request('/api/decided', { headers: { authorization: 'Bearer alice-token' } });
    expect(api.status).toBe(404);
    expect(await api.json()).toMatchObject({ error: { code: 'not_found' } });
  });

  it('a store that fails to read: the page says so, and the inbox still shows what waits', async () => {
    const store = fakeStore();
    store.list = async () => {
      throw new Error('disk gone');
    };
    const app = appWith(store);
    const page = await app.request('/decided', { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('The audit trail could not be read');
    const inbox = await (await app.request('/', { headers: { cookie } })).text();
    expect(inbox).toContain('Waiting now');
    expect(inbox).toContain('The audit trail could not be read');
  });
});

describe('Recently decided, under the waiting list', () => {
  it('shows the newest few decisions, newest first, and links to the Decided view', async () => {
    const store = fakeStore();
    const inbox = await (await appWith(store).request('/', { headers: { cookie } })).text();
    expect(store.asked).toEqual([{ kind: ['decision', 'decision_refused'], limit: 5 }]);
    const section = inbox.slice(inbox.indexOf('<section id="recently-decided"'));
    expect(section).toContain('Recently decided');
    const lines = [...section.matchAll(/<li class="decided-record">([\s\S]*?)<\/li>/g)].map((m) =>
      m[1]!
        .replace(/<[^>]+>/g, '')
        .replace(/\s+/g, ' ')
        .trim(),
    );
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^denied send_email by bob, \d+ \w+ ago · r2 &lt;b&gt;$/);
    expect(lines[1]).toMatch(/^approved edited 2 of 2 update_user by dave/);
    expect(section).toContain('<a href="/decided">Every decision</a>');
  });

  it('says when nothing was decided yet', async () => {
    const inbox = await (await appWith(fakeStore([])).request('/', { headers: { cookie } })).text();
    expect(inbox).toContain('Nothing decided yet.');
  });
});

describe('GET /api/decided', () => {
  const bearer = { authorization: 'Bearer alice-token' };

  it('returns the decision records newest first, filtered by person, tool and run', async () => {
    const store = fakeStore();
    const app = appWith(store);
    const all = await app.request('/api/decided', { headers: bearer });
    expect(all.status).toBe(200);
    const records = (await all.json()) as AuditRecord[];
    expect(records.map((r) => r.id)).toEqual([
      'r2/decision/c9/1',
      'r1/decision/c1/2',
      'r1/refused/c1/x',
      'r1/decision/c1/1',
    ]);
    expect(records[1]).toMatchObject({ person: 'dave', tool: 'update_user', details: { edited: true, quorum: 2 } });

    const bobs = (await (
      await app.request('/api/decided?person=bob&tool=update_user', { headers: bearer })
    ).json()) as AuditRecord[];
    expect(bobs.map((r) => r.id)).toEqual(['r1/decision/c1/1']);
    await app.request('/api/decided?run=r1&limit=3', { headers: bearer });
    expect(store.asked.at(-1)).toEqual({ kind: ['decision', 'decision_refused'], limit: 3, workflowId: 'r1' });
  });

  it('refuses a bad query with 400', async () => {
    const app = appWith(fakeStore());
    for (const query of ['limit=0', 'limit=x', 'who=bob']) {
      const response = await app.request(`/api/decided?${query}`, { headers: bearer });
      expect(response.status, query).toBe(400);
    }
  });
});
