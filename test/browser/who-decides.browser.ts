import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgent } from '../../src/agents/default';
import { defineAgent } from '../../src/agents/define';
import type { WaveloopClient } from '../../src/client/waveloop-client';
import { demoAgents } from '../../src/demo/agents';
import type { HttpServer } from '../../src/http';
import { chromiumOrSkip, pageFixture, SHOTS, type PageFixture } from '../support/browser';
import { toolMessages } from '../support/fake-model';
import type { Harness } from '../support/harness';
import { peopleWith, type TestPerson } from '../support/people';

/**
 * Who may decide, in a real Chromium (as test/browser/inbox.browser.ts drives it): a payment-like
 * call (`update_user`) whose rule needs finance, two approvals and four eyes. Alice (finance) starts
 * the run; bob sees the buttons and the preview, carol (ops) sees "needs finance" and no buttons,
 * alice no Approve; bob approves and carol's open inbox shows "1 of 2: bob" without a reload; dave
 * approves and the call runs once, both approvals recorded with when.
 */

const CHROMIUM = chromiumOrSkip();

const PEOPLE: TestPerson[] = [
  { name: 'alice', token: 'alice-finance-token', groups: ['finance'] },
  { name: 'bob', token: 'bob-finance-token', groups: ['finance'] },
  { name: 'dave', token: 'dave-finance-token', groups: ['finance'] },
  { name: 'carol', token: 'carol-ops-token', groups: ['ops'] },
];
const payments = defineAgent({
  name: 'payments',
  system: 'You change customer records when asked; finance signs each change off.',
  tools: ['update_user'],
  requiresApproval: { update_user: { approvers: ['finance'], quorum: 2, fourEyes: true } },
});

let fixture: PageFixture | undefined;
let h: Harness;
let client: WaveloopClient;
let server: HttpServer;
let browser: Browser;
beforeAll(async () => {
  if (!CHROMIUM) return;
  fixture = await pageFixture(CHROMIUM, {
    people: PEOPLE,
    worker: { agents: [defaultAgent, ...demoAgents, payments], people: peopleWith(PEOPLE).list() },
    http: { agents: ['payments'] },
  });
  ({ h, client, server, browser } = fixture);
});
afterAll(async () => {
  await fixture?.stop();
});

/** The inbox of `name`, signed in with their token, in a browser context of their own (their own cookie). */
async function inboxOf(name: string): Promise<Page> {
  const person = PEOPLE.find((p) => p.name === name)!;
  const page = await (await browser.newContext({ viewport: { width: 1100, height: 900 } })).newPage();
  await page.goto(`${server.url}/?token=${person.token}`);
  return page;
}

describe.skipIf(!CHROMIUM)('who may decide, in Chromium', () => {
  it('finance, two approvals, four eyes: only approvers get the buttons, the progress shows live, the second approval runs the call', async () => {
    h.fake.script({ toolCalls: [{ name: 'update_user', args: { id: 2, company: 'EPAM' } }] }, (request) => ({
      content: toolMessages(request).some((m) => m.includes('EPAM')) ? 'Bob now works at EPAM.' : 'Not changed.',
    }));
    const handle = await client.runs.start({
      goal: "Change Bob's company to EPAM",
      agent: 'payments',
      startedBy: 'alice',
    });
    const workflowId = handle.workflowId;

    // Bob (finance) sees the call, what it would change, who may decide, and the buttons.
    const bob = await inboxOf('bob');
    const bobsCard = bob.locator('article.decision', { hasText: 'update_user' });
    await bobsCard.waitFor();
    const words = async (page: Page) =>
      ((await page.locator('article.decision', { hasText: 'update_user' }).textContent()) ?? '').replace(/\s+/g, ' ');
    expect(await words(bob)).toContain('company: Initech → EPAM');
    expect(await words(bob)).toContain('Bob Martin (user 2)');
    expect(await words(bob)).toContain('started by alice');
    expect(await words(bob)).toContain('agent payments');
    expect(await words(bob)).toContain('needs finance · 0 of 2 · four eyes');
    expect(await bobsCard.getByRole('button', { name: 'Approve', exact: true }).isVisible()).toBe(true);
    expect(await bobsCard.getByRole('button', { name: 'Deny' }).isVisible()).toBe(true);

    // Carol (ops) sees the call and who it needs, and no buttons.
    const carol = await inboxOf('carol');
    const carolsCard = carol.locator('article.decision', { hasText: 'update_user' });
    await carolsCard.waitFor();
    expect(await words(carol)).toContain('needs finance');
    expect(await words(carol)).toContain('Only finance may decide it, not you (carol).');
    expect(await carolsCard.locator('button').count()).toBe(0);
    expect(await carolsCard.locator('form').count()).toBe(0);

    // Alice started the run: under four eyes she may deny, not approve.
    const alice = await inboxOf('alice');
    const alicesCard = alice.locator('article.decision', { hasText: 'update_user' });
    await alicesCard.waitFor();
    expect(await alicesCard.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0);
    expect(await alicesCard.getByRole('button', { name: 'Deny' }).count()).toBe(1);
    expect(await words(alice)).toContain('You started this run: under four eyes another person must approve it.');
    await carol.screenshot({ path: path.join(SHOTS, 'who-decides-carol.png') });

    // Bob approves: his card stays, with the progress; Carol's open inbox shows it without a reload.
    await bobsCard.getByRole('button', { name: 'Approve', exact: true }).click();
    await bobsCard.getByText('You approved; waits for 1 more.').waitFor();
    expect(await words(bob)).toContain('1 of 2: bob');
    expect(await bobsCard.getByRole('button', { name: 'Approve', exact: true }).count()).toBe(0);
    await carolsCard.getByText('1 of 2: bob').waitFor();
    expect((await client.runs.progress(workflowId)).pendingApprovals[0]?.approvals.map((vote) => vote.by)).toEqual([
      'bob',
    ]);
    await bob.screenshot({ path: path.join(SHOTS, 'who-decides-bob.png') });

    // Dave approves: the quorum is met, the call runs once, the run records both approvals.
    const dave = await inboxOf('dave');
    const davesCard = dave.locator('article.decision', { hasText: 'update_user' });
    await davesCard.getByText('1 of 2: bob').waitFor();
    await davesCard.getByRole('button', { name: 'Approve', exact: true }).click();
    await dave.locator('article.decided').waitFor();
    expect(await dave.locator('article.decided').textContent()).toContain('Approved by dave (2 of 2: bob, dave)');

    const result = await client.runs.result(workflowId);
    expect(result.answer).toBe('Bob now works at EPAM.');
    const call = result.waves.flatMap((wave) => wave.calls).find((c) => c.tool === 'update_user')!;
    expect(call.ok).toBe(true);
    expect(call.approval).toMatchObject({ decision: 'approved', by: 'dave' });
    expect(call.approval?.approvals?.map((vote) => vote.by)).toEqual(['bob', 'dave']);
    for (const vote of call.approval?.approvals ?? []) expect(Number.isNaN(Date.parse(vote.at))).toBe(false);
    expect(h.db.prepare('SELECT company FROM users WHERE id = 2').get()).toEqual({ company: 'EPAM' });
    expect(h.db.prepare("SELECT COUNT(*) AS n FROM tool_effects WHERE tool = 'update_user'").get()).toEqual({ n: 1 });
  });
});
