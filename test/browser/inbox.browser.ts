import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer, type HttpServer } from '../../src/http';
import { chromiumOrSkip, launchChromium, SHOTS } from '../support/browser';
import { cliFixture, type CliFixture } from '../support/cli';
import { toolMessages } from '../support/fake-model';
import { peopleWith } from '../support/people';

/**
 * The web inbox in a real Chromium (Debian's package, driven by playwright-core): a person starts a
 * demo run from the page, finds its `update_user` call waiting in the inbox, edits the arguments
 * (a malformed edit is refused and nothing is sent), approves, and watches the run's page until
 * the answer shows. Screenshots go to test/.output/browser (docs/images with WAVELOOP_SCREENSHOTS=docs).
 */

const CHROMIUM = chromiumOrSkip();

const ALICE = { name: 'alice', token: 'alice-inbox-token' };

let cli: CliFixture;
let server: HttpServer;
let browser: Browser;
let page: Page;
let inbox: Page;
/** What the pages' Content-Security-Policy refused, as Chromium logs it. */
const refused: string[] = [];
beforeAll(async () => {
  if (!CHROMIUM) return;
  cli = await cliFixture('inbox');
  server = await startHttpServer({
    client: cli.client,
    people: peopleWith([ALICE]),
    host: '127.0.0.1',
    port: 0,
    agents: ['default', 'back-office'],
    webUi: (id) => `http://127.0.0.1:8233/namespaces/default/workflows/${encodeURIComponent(id)}`,
    log: () => {},
  });
  browser = await launchChromium(CHROMIUM);
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  page = await context.newPage();
  inbox = await context.newPage();
  // What the pages' Content-Security-Policy refused: nothing, or a page does less than it should.
  for (const tab of [page, inbox])
    tab.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await cli?.stop();
});

describe.skipIf(!CHROMIUM)('the inbox in Chromium', () => {
  it('start a run, edit the waiting update_user call and approve it, watch the run until its answer; the database changed once', async () => {
    cli.fake.script({ toolCalls: [{ name: 'update_user', args: { id: 2, company: 'EPAM' } }] }, (request) => ({
      content: toolMessages(request).some((m) => m.includes('EPAM Systems'))
        ? 'Bob now works at EPAM Systems.'
        : 'The update did not go through.',
    }));

    // The printed address carries the token: the page keeps it in a cookie and drops it from the address.
    await page.goto(`${server.url}/start?token=${ALICE.token}`);
    expect(new URL(page.url()).search).toBe('');
    // Each field has a visible label; muted text keeps WCAG AA contrast (4.5:1) on the page's background.
    await page.locator('label', { hasText: 'Agent' }).locator('select').selectOption('back-office');
    await page
      .locator('label', { hasText: 'Goal' })
      .locator('textarea')
      .fill('Find Bob and update his company to EPAM');
    expect(await mutedContrast(page)).toBeGreaterThanOrEqual(4.5);
    await page.click('button:has-text("Start")');
    await page.waitForURL(/\/runs\/[^/]+$/);
    const workflowId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    // The run's page stays open in its tab and follows the run; the inbox opens in another.
    await page.locator('[data-status=waiting_for_approval]').waitFor();

    await inbox.goto(`${server.url}/`);
    const card = inbox.locator('article.decision', { hasText: 'update_user' });
    await card.waitFor();
    await expect.poll(() => card.textContent()).toContain('Find Bob and update his company to EPAM');
    expect(JSON.parse((await card.locator('pre.args').textContent())!)).toEqual({ id: 2, company: 'EPAM' });
    await inbox.screenshot({ path: path.join(SHOTS, 'inbox.png') });

    await card.locator('summary').click();
    await card.locator('textarea[name=args]').fill('{ "id": 2, "company": ');
    await card.locator('button[value=edit]').click();
    await inbox.locator('article.decision [role=alert]').waitFor();
    expect(await inbox.locator('article.decision [role=alert]').textContent()).toContain('The arguments are not JSON');
    expect((await cli.client.runs.progress(workflowId)).pendingApprovals).toHaveLength(1);
    expect(await cli.client.runs.decisions(workflowId)).toEqual([]);

    const again = inbox.locator('article.decision', { hasText: 'update_user' });
    await again.locator('textarea[name=args]').fill('{ "id": 2, "company": "EPAM Systems" }');
    await again.locator('button[value=edit]').click();
    await inbox.locator('article.decided').waitFor();
    expect(await inbox.locator('article.decided').textContent()).toContain('Approved with edited arguments by alice');

    // The run's page, never reloaded, shows the answer: its event stream brought it.
    await page.locator('pre.answer').waitFor();
    expect(await page.locator('pre.answer').textContent()).toBe('Bob now works at EPAM Systems.');
    expect((await page.locator('.call', { hasText: 'update_user' }).textContent())!.replace(/\s+/g, ' ')).toContain(
      'approved by alice, with edited arguments',
    );
    expect(await page.locator('a', { hasText: 'Temporal Web UI' }).getAttribute('href')).toContain(
      encodeURIComponent(workflowId),
    );
    await page.screenshot({ path: path.join(SHOTS, 'run-page.png'), fullPage: true });

    expect(cli.h.db.prepare('SELECT company FROM users WHERE id = 2').get()).toEqual({ company: 'EPAM Systems' });
    expect(cli.h.db.prepare("SELECT COUNT(*) AS n FROM tool_effects WHERE tool = 'update_user'").get()).toEqual({
      n: 1,
    });
    expect(refused).toEqual([]);
  });
});

/** The contrast ratio (WCAG 2) of the pages' muted text colour on the body's background, as Chromium computes them. */
async function mutedContrast(tab: Page): Promise<number> {
  // A string: this project's TypeScript has no DOM types, and the page's own code runs it.
  const [fg, bg] = await tab.evaluate<[string, string]>(`(() => {
    const probe = document.createElement('span');
    probe.className = 'muted';
    document.body.append(probe);
    const colours = [getComputedStyle(probe).color, getComputedStyle(document.body).backgroundColor];
    probe.remove();
    return colours;
  })()`);
  const luminance = (css: string) => {
    const [r, g, b, a = 1] = css.match(/[\d.]+/g)!.map(Number);
    // A transparent body shows the canvas: white in the light scheme the test's Chromium uses.
    const channels = a === 0 ? [255, 255, 255] : [r!, g!, b!];
    const [R, G, B] = channels.map((c) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4));
    return 0.2126 * R! + 0.7152 * G! + 0.0722 * B!;
  };
  const [light, dark] = [luminance(fg), luminance(bg)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
}
