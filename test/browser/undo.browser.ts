import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { WaveloopClient } from '../../src/client/waveloop-client';
import { undoWorkflowId, type UndoResult } from '../../src/contract/effects/undo';
import type { HttpServer } from '../../src/http';
import { defineTool, type AnyTool } from '../../src/tools/define';
import { chromiumOrSkip, pageFixture, SHOTS, type PageFixture } from '../support/browser';
import type { Harness } from '../support/harness';
import type { TestPerson } from '../support/people';

/**
 * Undo from the inbox's run page, in a real Chromium (docs/effects.md#undo-from-the-inbox): a run
 * paid an invoice after bob approved it. On the run's page alice sees the payment in "What this run
 * changed" and clicks "Undo this run"; the refund waits for approval as the payment did, its card
 * shows in the inbox, and bob approves it there. The refund runs once, and the run's page then says
 * the payment was undone by alice, approved by bob.
 */

const CHROMIUM = chromiumOrSkip();

const PEOPLE: TestPerson[] = [
  { name: 'alice', token: 'alice-undo-page-token' },
  { name: 'bob', token: 'bob-undo-page-token' },
];
/** What the payment tool did, in order: `pay <invoice>` and `refund <invoice>`. */
const ledger: string[] = [];
const payInvoice = defineTool({
  name: 'pay_invoice',
  description: 'Pays an invoice.',
  parameters: z.object({ invoice: z.string(), amount: z.number() }),
  requiresApproval: true,
  execute: ({ invoice }) => {
    ledger.push(`pay ${invoice}`);
    return `paid ${invoice}`;
  },
  undo: ({ invoice }) => {
    ledger.push(`refund ${invoice}`);
    return `refunded ${invoice}`;
  },
}) as unknown as AnyTool;

let fixture: PageFixture | undefined;
let h: Harness;
let client: WaveloopClient;
let server: HttpServer;
let browser: Browser;
beforeAll(async () => {
  if (!CHROMIUM) return;
  fixture = await pageFixture(CHROMIUM, { people: PEOPLE, worker: { extraTools: [payInvoice] } });
  ({ h, client, server, browser } = fixture);
});
afterAll(async () => {
  await fixture?.stop();
});

describe.skipIf(!CHROMIUM)('undo from the run page, in Chromium', () => {
  it("alice undoes a run from its page; the refund's approval shows in the inbox, bob approves it there, and the page shows the payment undone by alice, approved by bob", async () => {
    h.fake.script(
      { toolCalls: [{ id: 'call_pay', name: 'pay_invoice', args: { invoice: 'INV-7', amount: 70 } }] },
      { content: 'Paid INV-7.' },
    );
    const { workflowId } = await client.runs.start({ goal: 'Pay INV-7', startedBy: 'alice' });
    await expect
      .poll(async () => (await client.runs.progress(workflowId)).pendingApprovals.length, { timeout: 30_000 })
      .toBe(1);
    await client.runs.approve(workflowId, 'call_pay', { by: 'bob' });
    expect((await client.runs.result(workflowId)).status).toBe('completed');
    expect(ledger).toEqual(['pay INV-7']);

    const runPage = `/runs/${encodeURIComponent(workflowId)}`;
    const alice = await (await browser.newContext({ viewport: { width: 1200, height: 1000 } })).newPage();
    await alice.goto(`${server.url}${runPage}?token=${PEOPLE[0]!.token}`);
    const section = alice.locator('section.effects');
    const row = section.locator('tr.effect[data-call="call_pay"]');
    expect(await section.locator('h2').textContent()).toBe('What this run changed');
    expect((await row.locator('td').allTextContents()).map((cell) => cell.replace(/\s+/g, ' ').trim())).toEqual([
      '1',
      'pay_invoice',
      'write',
      '{"invoice":"INV-7","amount":70}',
      'paid INV-7',
      'bob',
      'no',
    ]);

    // Alice starts the undo; it waits for approval, as the payment did.
    await section.getByRole('button', { name: 'Undo this run' }).click();
    await expect
      .poll(async () => (await section.locator('.undo-started').textContent()) ?? '', { timeout: 30_000 })
      .toContain(`Undo started by alice (${undoWorkflowId(workflowId)})`);
    expect(ledger).toEqual(['pay INV-7']);

    // Alice's run page, read again, says the undo runs and shows its waiting card, without the button.
    await expect
      .poll(
        async () => {
          await alice.goto(`${server.url}${runPage}`);
          return await alice.locator('article.decision h3').allTextContents();
        },
        { timeout: 30_000, interval: 500 },
      )
      .toEqual(['Approve the undo of pay_invoice?']);
    expect((await section.locator('.undo-running').textContent())?.replace(/\s+/g, ' ').trim()).toBe(
      `An undo of this run is running (${undoWorkflowId(workflowId)}): its approvals wait above and in the inbox.`,
    );
    expect(await section.getByRole('button', { name: 'Undo this run' }).count()).toBe(0);

    // Bob finds the refund's approval in the inbox, like any approval, and approves it there.
    const bob = await (await browser.newContext({ viewport: { width: 1200, height: 1000 } })).newPage();
    await bob.goto(`${server.url}/?token=${PEOPLE[1]!.token}`);
    const card = bob.locator('article.decision', { hasText: 'pay_invoice' });
    await card.waitFor({ timeout: 30_000 });
    expect(await card.textContent()).toContain(undoWorkflowId(workflowId));
    expect(await card.locator('h3').textContent()).toBe('Approve the undo of pay_invoice?');
    expect(await card.textContent()).toContain('Undo of pay_invoice');
    await bob.screenshot({ path: path.join(SHOTS, 'undo-inbox.png'), fullPage: true });
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await bob.getByText('Approved by bob').waitFor({ timeout: 30_000 });

    const undone = (await h.client.workflow.getHandle(undoWorkflowId(workflowId)).result()) as UndoResult;
    expect(undone.undone.map((entry) => [entry.callId, entry.approvedBy])).toEqual([['call_pay', ['bob']]]);
    expect(ledger).toEqual(['pay INV-7', 'refund INV-7']);

    // The run's page now says who undid the payment, and offers no undo any more.
    await alice.goto(`${server.url}${runPage}`);
    expect((await row.locator('td.undone').textContent())?.replace(/\s+/g, ' ').trim()).toBe(
      'undone by alice, approved by bob',
    );
    expect(await section.getByRole('button', { name: 'Undo this run' }).count()).toBe(0);
    await alice.screenshot({ path: path.join(SHOTS, 'undo-run-page.png'), fullPage: true });
  });
});
