import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { WaveloopClient } from '../../src/client/waveloop-client';
import type { HttpServer } from '../../src/http';
import { defineTool, type AnyTool } from '../../src/tools/define';
import { chromiumOrSkip, pageFixture, SHOTS, type PageFixture } from '../support/browser';
import { toolMessages } from '../support/fake-model';
import type { Harness } from '../support/harness';
import type { TestPerson } from '../support/people';

/**
 * "What this run changed" on a run's page, in a real Chromium (as test/browser/inbox.browser.ts
 * drives it): a run whose first wave reads (`search_users`), sends a payment (`send_payment`, a
 * `write` tool with a sensitive IBAN) and asks to change Bob's company (`update_user`, `idempotent`,
 * waiting for approval). While it waits, the section lists the payment; alice approves the update
 * on the page, and the section, followed live, lists it too, approved by alice. The read is never
 * listed, and the IBAN shows masked.
 */

const CHROMIUM = chromiumOrSkip();

const PEOPLE: TestPerson[] = [{ name: 'alice', token: 'alice-effects-token' }];
const IBAN = 'DE89370400440532013000';
const sendPayment = defineTool({
  name: 'send_payment',
  description: 'Sends a payment to an IBAN.',
  effect: 'write',
  parameters: z.object({ iban: z.string(), amountUsd: z.number() }),
  sensitive: ['iban'],
  execute: ({ amountUsd }) => `sent ${amountUsd} USD`,
}) as unknown as AnyTool;

let fixture: PageFixture | undefined;
let h: Harness;
let client: WaveloopClient;
let server: HttpServer;
let browser: Browser;
beforeAll(async () => {
  if (!CHROMIUM) return;
  fixture = await pageFixture(CHROMIUM, { people: PEOPLE, worker: { extraTools: [sendPayment] } });
  ({ h, client, server, browser } = fixture);
});
afterAll(async () => {
  await fixture?.stop();
});

describe.skipIf(!CHROMIUM)('what a run changed, in Chromium', () => {
  it('the run page lists the calls that changed something, live: the payment while the update waits, then the update approved by alice; never the read, the IBAN masked', async () => {
    h.fake.script(
      {
        toolCalls: [
          { id: 'call_search', name: 'search_users', args: { name: 'Bob' } },
          { id: 'call_pay', name: 'send_payment', args: { iban: IBAN, amountUsd: 120 } },
          { id: 'call_update', name: 'update_user', args: { id: 2, company: 'EPAM' } },
        ],
      },
      (request) => ({
        content: toolMessages(request).some((m) => m.includes('EPAM')) ? 'Paid, and Bob now works at EPAM.' : 'No.',
      }),
    );
    const { workflowId } = await client.runs.start({ goal: 'Pay Bob and move him to EPAM', startedBy: 'alice' });

    const page = await (await browser.newContext({ viewport: { width: 1200, height: 1000 } })).newPage();
    await page.goto(`${server.url}/runs/${encodeURIComponent(workflowId)}?token=${PEOPLE[0]!.token}`);
    const section = page.locator('section.effects');
    const rows = section.locator('tr.effect');
    const cells = async () =>
      await rows.evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.replace(/\s+/g, ' ').trim())),
      );

    // While update_user waits: the payment ran and is listed; the read is not.
    await page.locator('article.decision', { hasText: 'update_user' }).waitFor();
    await expect.poll(() => rows.count(), { timeout: 30_000, interval: 250 }).toBe(1);
    expect(await section.locator('h2').textContent()).toBe('What this run changed');
    expect(await cells()).toEqual([
      ['1', 'send_payment', 'write', `{"iban":"•••• 3000","amountUsd":120}`, 'sent 120 USD', 'did not wait', 'no undo'],
    ]);

    // Alice approves on the run's page: the section, following the run, lists the update too.
    await page
      .locator('article.decision', { hasText: 'update_user' })
      .getByRole('button', { name: 'Approve', exact: true })
      .click();
    await expect.poll(() => rows.count(), { timeout: 30_000, interval: 250 }).toBe(2);
    await page.locator('[data-status="completed"]').waitFor({ timeout: 30_000 });
    const listed = await cells();
    expect(listed.map((row) => row.slice(0, 3))).toEqual([
      ['1', 'send_payment', 'write'],
      ['1', 'update_user', 'idempotent'],
    ]);
    expect(listed[1]![3]).toBe('{"id":2,"company":"EPAM"}');
    expect(JSON.parse(listed[1]![4]!)).toMatchObject({ id: 2, company: 'EPAM' });
    expect(listed[1]![5]).toBe('alice');
    expect(await section.textContent()).not.toContain('search_users');
    expect(await page.content()).not.toContain(IBAN);
    await page.screenshot({ path: path.join(SHOTS, 'effects-run-page.png'), fullPage: true });
    expect((await client.runs.result(workflowId)).answer).toBe('Paid, and Bob now works at EPAM.');
  });

  it('an approval clicked while the page fetches the run anew is sent, and the run goes on', async () => {
    h.fake.script(
      { toolCalls: [{ id: 'call_update', name: 'update_user', args: { id: 2, company: 'EPAM' } }] },
      (request) => ({
        content: toolMessages(request).some((m) => m.includes('EPAM')) ? 'Bob now works at EPAM.' : 'No.',
      }),
    );
    const { workflowId } = await client.runs.start({ goal: 'Move Bob to EPAM', startedBy: 'alice' });
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/runs/${encodeURIComponent(workflowId)}?token=${PEOPLE[0]!.token}`);
    const card = page.locator('article.decision', { hasText: 'update_user' });
    await card.waitFor();

    // The section's fetches are held back, as a slow server would, while events keep arriving.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/view', async (route) => {
      await held;
      await route.continue();
    });
    const fetchAnew = () => page.evaluate("htmx.trigger('#run', 'sse:call')");
    await fetchAnew();
    const approval = page.waitForRequest((r) => r.method() === 'POST' && r.url().includes('/approvals/'));
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await fetchAnew();
    await approval;
    release();

    expect((await client.runs.result(workflowId)).answer).toBe('Bob now works at EPAM.');
    await page.locator('[data-status="completed"]').waitFor({ timeout: 30_000 });
  });
});
