import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defaultAgent } from '../../src/agents/default';
import { defineAgent } from '../../src/agents/define';
import type { WaveloopClient } from '../../src/client/waveloop-client';
import type { AgentLoopResult } from '../../src/contract/agent-loop';
import { demoAgents } from '../../src/demo/agents';
import type { HttpServer } from '../../src/http';
import { defineTool, type AnyTool } from '../../src/tools/define';
import { chromiumOrSkip, pageFixture, SHOTS, type PageFixture } from '../support/browser';
import { toolMessages, type ChatRequest, type ScriptedReply } from '../support/fake-model';
import type { Harness } from '../support/harness';
import type { TestPerson } from '../support/people';

/**
 * An approval deep in a tree of agents, in a real Chromium (docs/agents.md#approvals-anywhere-in-the-tree):
 * triage calls billing as a tool, billing's refund waits for approval. Bob's inbox shows the refund's
 * card with its chain (the root run and its goal, triage and its call, each a link); he approves it
 * there, the refund runs once, and the root run completes with billing's answer.
 */

const CHROMIUM = chromiumOrSkip();

const PEOPLE: TestPerson[] = [{ name: 'bob', token: 'bob-nested-approval-token' }];
const GOAL = 'Customer 7 wants the 30 USD of order 42 back.';

/** Every refund that ran. */
const refunds: string[] = [];
const refund = defineTool({
  name: 'refund',
  description: 'Refunds an order.',
  parameters: z.object({ order: z.string(), amount: z.number() }),
  requiresApproval: true,
  execute: ({ order, amount }) => {
    refunds.push(`${order} ${amount}`);
    return `refunded ${amount} USD on order ${order}`;
  },
}) as unknown as AnyTool;
const triage = defineAgent({
  name: 'triage',
  system: 'You are triage. You send requests to the right team.',
  tools: [],
  agents: ['billing'],
});
const billing = defineAgent({ name: 'billing', system: 'You are billing. You refund orders.', tools: ['refund'] });

/** Triage asks billing, then answers with what it said; billing refunds, then answers. */
function model(request: ChatRequest): ScriptedReply {
  const results = toolMessages(request);
  if (String(request.messages[0]?.content).startsWith('You are billing'))
    return results.length === 0
      ? { toolCalls: [{ id: 'call_refund', name: 'refund', args: { order: '42', amount: 30 } }] }
      : { content: 'Refunded 30 USD on order 42.' };
  return results.length === 0
    ? { toolCalls: [{ id: 'call_billing', name: 'billing', args: { task: 'Refund 30 USD on order 42.' } }] }
    : { content: `Billing: ${results[0]}` };
}

let fixture: PageFixture | undefined;
let h: Harness;
let client: WaveloopClient;
let server: HttpServer;
let browser: Browser;
beforeAll(async () => {
  if (!CHROMIUM) return;
  fixture = await pageFixture(CHROMIUM, {
    people: PEOPLE,
    worker: { extraTools: [refund], agents: [defaultAgent, ...demoAgents, triage, billing] },
  });
  ({ h, client, server, browser } = fixture);
});
afterAll(async () => {
  await fixture?.stop();
});

describe.skipIf(!CHROMIUM)('an approval deep in a tree of agents, in Chromium', () => {
  it("bob's inbox shows billing's refund with its chain up to the root; approving it there completes the root run", async () => {
    h.fake.route(model, { atMost: 4 });
    const id = 'nested-approval-page';
    await client.runs.start({ goal: GOAL, agent: 'triage', startedBy: 'alice' }, { workflowId: id });
    const childId = `${id}/call_billing`;

    const bob = await (await browser.newContext({ viewport: { width: 1200, height: 1000 } })).newPage();
    await bob.goto(`${server.url}/?token=${PEOPLE[0]!.token}`);
    const card = bob.locator('article.decision', { hasText: 'refund' });
    await card.waitFor({ timeout: 30_000 });
    const words = ((await card.textContent()) ?? '').replace(/\s+/g, ' ');
    expect(words).toContain(childId);
    expect(words).toContain(GOAL);
    expect(words).toContain('triage (call call_billing)');
    // The chain's runs are links: the root's page is one click away.
    expect(await card.locator(`a[href="/runs/${id}"]`).count()).toBeGreaterThan(0);
    await bob.screenshot({ path: path.join(SHOTS, 'nested-approval-inbox.png'), fullPage: true });
    expect(refunds).toEqual([]);

    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    await bob.getByText('Approved by bob').waitFor({ timeout: 30_000 });
    const result = (await client.runs.result(id)) as AgentLoopResult;
    expect(result).toMatchObject({ status: 'completed', answer: 'Billing: Refunded 30 USD on order 42.' });
    expect(refunds).toEqual(['42 30']);
  });
});
