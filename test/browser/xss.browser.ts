import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WaveloopClient } from '../../src/client/waveloop-client';
import type { HttpServer } from '../../src/http';
import { chromiumOrSkip, pageFixture, type PageFixture } from '../support/browser';
import { toolMessages } from '../support/fake-model';
import { assess, goalModel, synthesis } from '../support/goal-model';
import { Harness, waitForProgress } from '../support/harness';

/**
 * What a model, a tool's caller or whoever starts a run writes is shown as text, never run as page
 * code: a goal, tool arguments, a question, a model's answer and a goal tree's goal and result, each
 * carrying a `<script>` and an `onerror` payload, on the inbox, a run's page (with the answer swapped
 * in live from its event stream), the runs list and a goal tree's page, in a real Chromium. The
 * pages' own Content-Security-Policy would stop an inline script anyway, so the test looks for the
 * payload's elements in the DOM, not only for their effect.
 */

const CHROMIUM = chromiumOrSkip();
const ALICE = { name: 'alice', token: 'alice-xss-token' };
const PAYLOAD = `<img src=x id=xss-img onerror="window.__xss=1"><script id=xss-script>window.__xss=2</script>`;

let fixture: PageFixture | undefined;
let h: Harness;
let client: WaveloopClient;
let server: HttpServer;
let browser: Browser;
beforeAll(async () => {
  if (!CHROMIUM) return;
  fixture = await pageFixture(CHROMIUM, { people: [ALICE], http: { agents: ['back-office'] } });
  ({ h, client, server, browser } = fixture);
});
afterAll(async () => {
  await fixture?.stop();
});

/** Whether the payload became page code or elements on `page`: it must stay text. */
async function injected(page: Page): Promise<{ ran: unknown; elements: number; shown: boolean }> {
  return {
    ran: await page.evaluate('window.__xss'),
    elements: await page.locator('#xss-img, #xss-script').count(),
    shown: ((await page.locator('main').textContent()) ?? '').includes('<script id=xss-script>'),
  };
}

describe.skipIf(!CHROMIUM)('hostile text in the inbox, in Chromium', () => {
  it('a goal, arguments, a question, an answer and a goal tree carrying script are shown as text on every page', async () => {
    h.fake.script(
      {
        toolCalls: [
          { id: 'call_ask', name: 'ask_question', args: { question: `Which one? ${PAYLOAD}` } },
          { id: 'call_update', name: 'update_user', args: { id: 2, company: PAYLOAD } },
        ],
      },
      (request) => ({ content: `Done: ${toolMessages(request).length} results. ${PAYLOAD}` }),
    );
    const { workflowId } = await client.runs.start({ goal: `Update Bob ${PAYLOAD}`, agent: 'back-office' });
    await waitForProgress(
      h.client,
      client.runs.handle(workflowId),
      (p) => p.pendingQuestions.length === 1 && p.pendingApprovals.length === 1,
    );

    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/?token=${ALICE.token}`);
    await page.locator('article.decision', { hasText: 'update_user' }).waitFor();
    expect(await injected(page)).toEqual({ ran: undefined, elements: 0, shown: true });

    // The run's page, left open while the run ends: the answer arrives by its event stream.
    await page.goto(`${server.url}/runs/${encodeURIComponent(workflowId)}`);
    expect(await injected(page)).toEqual({ ran: undefined, elements: 0, shown: true });
    await client.runs.answer(workflowId, 'the first');
    await client.runs.approve(workflowId, 'call_update', { by: 'alice' });
    await page.locator('pre.answer').waitFor();
    expect(await page.locator('pre.answer').textContent()).toContain('<script id=xss-script>');
    expect(await injected(page)).toEqual({ ran: undefined, elements: 0, shown: true });

    await page.goto(`${server.url}/runs`);
    await page.locator('main', { hasText: 'Update Bob' }).waitFor();
    expect(await injected(page)).toEqual({ ran: undefined, elements: 0, shown: true });

    const tree = `Plan ${PAYLOAD}`;
    const router = goalModel({
      [tree]: { assessment: [assess.answer()], synthesis: [synthesis(`Planned. ${PAYLOAD}`)] },
    });
    h.fake.script(...router.steps);
    const { handle } = await h.pursue({ goal: tree });
    await page.goto(`${server.url}/goals/${encodeURIComponent(handle.workflowId)}`);
    await page.locator('main', { hasText: 'Planned.' }).waitFor();
    expect(await injected(page)).toEqual({ ran: undefined, elements: 0, shown: true });
  });
});
