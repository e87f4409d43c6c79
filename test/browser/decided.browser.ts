import * as path from 'node:path';
import type { Worker } from '@temporalio/worker';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SqliteAuditStore } from '../../src/audit/sqlite-store';
import { WaveloopClient } from '../../src/client/waveloop-client';
import { startHttpServer, type HttpServer } from '../../src/http';
import { defineTool, type AnyTool } from '../../src/tools/define';
import { chromiumOrSkip, launchChromium, SHOTS } from '../support/browser';
import { toolMessages } from '../support/fake-model';
import { Harness } from '../support/harness';
import { peopleWith, type TestPerson } from '../support/people';

/**
 * The inbox's Decided view in a real Chromium (as test/browser/inbox.browser.ts drives it), on the
 * tests' Temporal server with a worker that writes the audit trail to `audit.db` and a server that
 * reads the same file through a store of its own, as `waveloop worker` and `waveloop serve` do.
 * Alice approves a waiting `update_user` call; after a refresh the inbox still says so ("Recently
 * decided") and the Decided view lists it; searching by alice finds it, by bob does not. A card
 * number, a `sensitive` argument, is never in the pages' HTML: not while its call waits, not on the
 * run's page, not in the Decided view; the tool gets it in clear.
 */

const CHROMIUM = chromiumOrSkip();

const PEOPLE: TestPerson[] = [
  { name: 'alice', token: 'alice-decided-token' },
  { name: 'bob', token: 'bob-decided-token' },
];

let h: Harness;
let worker: Worker;
let running: Promise<void>;
let workerAudit: SqliteAuditStore;
let serverAudit: SqliteAuditStore;
let client: WaveloopClient;
let server: HttpServer;
let browser: Browser;
const CARD = '4111111111111111';
const charged: string[] = [];
const chargeCard = defineTool({
  name: 'charge_card',
  description: 'Charges a card.',
  parameters: z.object({ cardNumber: z.string(), amount: z.number() }),
  sensitive: ['cardNumber'],
  requiresApproval: true,
  execute: ({ cardNumber, amount }) => {
    charged.push(`${cardNumber} ${amount}`);
    return `charged ${amount}`;
  },
}) as unknown as AnyTool;
beforeAll(async () => {
  if (!CHROMIUM) return;
  h = await new Harness().start();
  // Two stores on one file: the worker's writes, the server's reads, as two processes would.
  workerAudit = new SqliteAuditStore(path.join(h.dataDir, 'audit.db'));
  serverAudit = new SqliteAuditStore(path.join(h.dataDir, 'audit.db'));
  const served = await h.worker({ audit: workerAudit, extraTools: [chargeCard] });
  worker = served.worker;
  running = worker.run();
  client = new WaveloopClient(h.client, served.taskQueue);
  server = await startHttpServer({
    client,
    people: peopleWith(PEOPLE),
    host: '127.0.0.1',
    port: 0,
    agents: ['back-office'],
    audit: serverAudit,
    log: () => {},
  });
  browser = await launchChromium(CHROMIUM);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await running;
  await serverAudit?.close();
  await workerAudit?.close();
  await h?.stop();
});

/** `page` loaded again until `text` shows in `selector`: the audit record is written a moment after the decision. */
async function reloadUntil(page: Page, selector: string, text: string): Promise<void> {
  await expect
    .poll(
      async () => {
        await page.reload();
        return ((await page.locator(selector).textContent()) ?? '').replace(/\s+/g, ' ');
      },
      { timeout: 30_000, interval: 500 },
    )
    .toContain(text);
}

describe.skipIf(!CHROMIUM)('the Decided view, in Chromium', () => {
  it('a decision taken in the inbox outlives a refresh, is listed in Decided, and is found by its person only', async () => {
    h.fake.script({ toolCalls: [{ name: 'update_user', args: { id: 2, company: 'EPAM' } }] }, (request) => ({
      content: toolMessages(request).some((m) => m.includes('EPAM')) ? 'Bob now works at EPAM.' : 'Not changed.',
    }));
    const { workflowId } = await client.runs.start({
      goal: "Change Bob's company to EPAM",
      agent: 'back-office',
      startedBy: 'bob',
    });

    const page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
    await page.goto(`${server.url}/?token=${PEOPLE[0]!.token}`);
    const card = page.locator('article.decision', { hasText: 'update_user' });
    await card.waitFor();
    expect(await page.locator('#waiting-count').textContent()).toBe('(1)');
    // The list's own refresh is held back, so only the decision's answer can change the count.
    await page.route('**/inbox/waiting?*', (route) => route.abort());
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.locator('article.decided').waitFor();
    expect(await page.locator('article.decided').textContent()).toContain('Approved by alice');
    expect(await page.locator('#waiting-count').textContent()).toBe('(0)');
    await page.unroute('**/inbox/waiting?*');

    // The confirmation outlives a refresh: "Recently decided" reads it from the audit trail.
    await reloadUntil(page, '#recently-decided', 'approved update_user by alice');
    expect(await page.locator('article.decided').count()).toBe(0);
    expect(await page.locator('#recently-decided a', { hasText: workflowId }).getAttribute('href')).toBe(
      `/runs/${encodeURIComponent(workflowId)}`,
    );

    // The Decided view, reached from the nav: the decision, who, the tool, its arguments, the run.
    await page.getByRole('navigation').getByRole('link', { name: 'Decided' }).click();
    await page.waitForURL(/\/decided$/);
    const row = page.locator('tr.decided-record', { hasText: workflowId });
    await row.waitFor();
    const words = ((await row.textContent()) ?? '').replace(/\s+/g, ' ');
    expect(words).toContain('alice');
    expect(words).toContain('approved');
    expect(words).toContain('update_user');
    expect(JSON.parse((await row.locator('pre.args').textContent())!)).toEqual({ id: 2, company: 'EPAM' });
    expect(await row.getByRole('link', { name: workflowId }).getAttribute('href')).toBe(
      `/runs/${encodeURIComponent(workflowId)}`,
    );
    await page.screenshot({ path: path.join(SHOTS, 'decided.png'), fullPage: true });

    // Searched by the person who decided: found; by another: not.
    const search = page.getByRole('search', { name: 'Search decisions' });
    await search.getByLabel('Person').fill('alice');
    await search.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/person=alice/);
    await page.locator('tr.decided-record', { hasText: workflowId }).waitFor();
    expect(new Set(await page.locator('tr.decided-record .who').allTextContents())).toEqual(new Set(['alice']));

    await page.getByRole('search').getByLabel('Person').fill('bob');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/person=bob/);
    expect(await page.locator('tr.decided-record').count()).toBe(0);
    expect(((await page.locator('main').textContent()) ?? '').replace(/\s+/g, ' ')).toContain(
      'No decisions by bob in the audit trail.',
    );

    // By the run and the tool, with the person cleared: found.
    await page.getByRole('search').getByLabel('Person').fill('');
    await page.getByRole('search').getByLabel('Tool').fill('update_user');
    await page.getByRole('search').getByLabel('Run').fill(workflowId);
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/run=/);
    expect(await page.locator('tr.decided-record').count()).toBe(1);

    expect((await client.runs.result(workflowId)).answer).toBe('Bob now works at EPAM.');
  });

  it('a sensitive argument shows masked in the inbox, on the run page and in Decided, never in clear, while the tool gets it', async () => {
    h.fake.script(
      { toolCalls: [{ name: 'charge_card', args: { cardNumber: CARD, amount: 25 } }] },
      { content: 'Charged.' },
    );
    const { workflowId } = await client.runs.start({
      goal: 'Charge the card for the order',
      tools: ['charge_card'],
      startedBy: 'bob',
    });
    const page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
    await page.goto(`${server.url}/?token=${PEOPLE[0]!.token}`);
    const card = page.locator('article.decision', { hasText: 'charge_card' });
    await card.waitFor();
    expect((await card.textContent())!.replace(/\s+/g, ' ')).toContain('•••• 1111');
    expect(await page.content()).not.toContain(CARD);

    await page.goto(`${server.url}/runs/${encodeURIComponent(workflowId)}`);
    await page.locator('main', { hasText: 'charge_card' }).waitFor();
    expect(await page.content()).not.toContain(CARD);

    await page.goto(`${server.url}/`);
    await page
      .locator('article.decision', { hasText: 'charge_card' })
      .getByRole('button', { name: 'Approve', exact: true })
      .click();
    await page.locator('article.decided').waitFor();
    expect((await client.runs.result(workflowId)).answer).toBe('Charged.');
    expect(charged).toEqual([`${CARD} 25`]);

    await page.goto(`${server.url}/decided?run=${encodeURIComponent(workflowId)}`);
    await reloadUntil(page, 'main', 'charge_card');
    expect(JSON.parse((await page.locator('tr.decided-record pre.args').first().textContent())!)).toEqual({
      cardNumber: '•••• 1111',
      amount: 25,
    });
    expect(await page.content()).not.toContain(CARD);
  });
});
