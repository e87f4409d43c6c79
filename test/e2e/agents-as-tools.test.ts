import * as fs from 'node:fs';
import * as path from 'node:path';
import { WorkflowFailedError, type ApplicationFailure } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PendingDecision } from '../../src/client/pending';
import type { AgentLoopInput, AgentLoopResult, RunProgress } from '../../src/contract/agent-loop';
import type { WebhookBody } from '../../src/contract/webhooks/webhooks';
import { tokenSha256 } from '../../src/settings';
import { cliFixture, serveProcess, waveloop, workerProcess, type CliFixture, type LiveCommand } from '../support/cli';
import { toolMessages, type ChatRequest, type ScriptedReply } from '../support/fake-model';
import { recordHistory } from '../support/history';
import { testProject, type TestProject } from '../support/project';
import { eventually, gate } from '../support/wait';
import { webhookReceiver } from '../support/webhook-receiver';

/**
 * Agents that call agents: a triage agent calls billing and CRM as tools, each a child run with its
 * own tools, rules and output; a refund three levels down waits for a person, shows in `pending`
 * with the chain that asked for it, and runs once when approved, while workers are killed. The
 * worker is a `waveloop worker` process over a project config, so it can be killed.
 */

const ERIN_TOKEN = 'erin-secret-token';

const CONFIG = (dir: string) => `import * as fs from 'node:fs';
import * as path from 'node:path';
import { defineAgent, defineConfig, defineTool } from 'waveloop';
import { z } from 'zod';

const log = (line: string) => fs.appendFileSync(path.join(${JSON.stringify(dir)}, 'effects.log'), line + '\\n');

export default defineConfig({
  people: [{ name: 'erin', tokenSha256: ${JSON.stringify(tokenSha256(ERIN_TOKEN))} }],
  tools: [
    defineTool({
      name: 'refund',
      description: 'Refunds an order.',
      parameters: z.object({ order: z.string(), amount: z.number().positive() }),
      requiresApproval: true,
      execute: ({ order, amount }) => {
        log(\`refund \${order} \${amount}\`);
        return \`refunded \${amount} USD on order \${order}\`;
      },
    }),
    defineTool({
      name: 'note',
      description: 'Notes something on a customer.',
      parameters: z.object({ customer: z.number(), text: z.string() }),
      execute: ({ customer, text }) => {
        log(\`note \${customer} \${text}\`);
        return \`noted on customer \${customer}\`;
      },
    }),
  ],
  agents: [
    defineAgent({
      name: 'triage',
      system: 'You are triage: you read a request and involve the specialists.',
      tools: [],
      agents: ['billing', 'crm'],
    }),
    defineAgent({
      name: 'billing',
      system: 'You are billing.\\nYou refund orders.',
      description: 'Refunds orders; give it the order and the amount.',
      tools: ['refund'],
      agents: ['triage', 'crm'],
      output: z.object({ order: z.string(), refunded: z.number() }),
    }),
    defineAgent({ name: 'crm', system: 'You are CRM: you keep the customer records.', tools: ['note'] }),
  ],
});
`;

let cli: CliFixture;
let project: TestProject;
let worker: LiveCommand | undefined;
let served: LiveCommand | undefined;
let receiver: Awaited<ReturnType<typeof webhookReceiver>>;

const effects = () => {
  const file = path.join(project.dir, 'effects.log');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n') : [];
};
const cmd = (args: string[]) => waveloop(args, cli.env, { cwd: project.dir });

async function startWorker(): Promise<void> {
  const allow = new URL(receiver.url('/')).host;
  worker = await workerProcess({ ...cli.env, WAVELOOP_WEBHOOK_ALLOW: allow }, { cwd: project.dir });
}

async function killWorker(): Promise<void> {
  worker!.kill('SIGKILL');
  await worker!.done;
}

/** The agent a request is for, by its system prompt. */
function agentOf(request: ChatRequest): 'triage' | 'billing' | 'crm' {
  const system = String(request.messages[0]?.content ?? '');
  if (system.startsWith('You are triage')) return 'triage';
  if (system.startsWith('You are billing')) return 'billing';
  if (system.startsWith('You are CRM')) return 'crm';
  throw new Error(`a request of no known agent: ${system.slice(0, 60)}`);
}

/** The task (or goal) a request's run was given: its first user message. */
function taskOf(request: ChatRequest): string {
  return String(request.messages.find((m) => m.role === 'user')?.content ?? '');
}

/** The progress of run `id` once it matches `predicate` (a child run: once its parent has started it). */
async function progressOf(id: string, predicate: (progress: RunProgress) => boolean): Promise<RunProgress> {
  const progress = await eventually(
    () => cli.client.runs.progress(id, { quick: true }).catch(() => undefined),
    (p) => p !== undefined && predicate(p),
    { attempts: 300, problem: `${id} never reached the expected state` },
  );
  return progress!;
}

const offered = (request: ChatRequest) => (request.tools ?? []).map((tool) => tool.function.name).sort();

beforeAll(async () => {
  cli = await cliFixture('agents-as-tools', { worker: false });
  receiver = await webhookReceiver();
  project = testProject();
  project.write('waveloop.config.ts', CONFIG(project.dir));
  await startWorker();
});
afterAll(async () => {
  served?.kill('SIGTERM');
  await served?.done;
  worker?.kill('SIGTERM');
  await worker?.done;
  project?.remove();
  await receiver?.close();
  await cli?.stop();
});

describe('agents as tools', () => {
  it('triage calls billing and crm in one wave; the refund waits in billing and is listed with its chain; approved over HTTP, with a worker killed while it waits and after it ran, it runs once; triage answers from both', async () => {
    const id = 'agents-triage-refund';
    const seen: Record<string, ChatRequest[]> = { triage: [], billing: [], crm: [] };
    const billingAsked = gate();
    const billingAnswer = gate();
    let asked = false;
    void billingAsked.until.then(() => (asked = true));
    cli.fake.route(
      (request): ScriptedReply | Promise<ScriptedReply> => {
        const agent = agentOf(request);
        seen[agent].push(request);
        const results = toolMessages(request);
        if (agent === 'triage') {
          if (results.length === 0)
            return {
              toolCalls: [
                { id: 'call_billing', name: 'billing', args: { task: 'Refund 30 USD on order 42.' } },
                { id: 'call_crm', name: 'crm', args: { task: 'Note the refund of order 42 on customer 7.' } },
              ],
            };
          return { content: `Done. Billing: ${results[0]} CRM: ${results[1]}` };
        }
        if (agent === 'billing') {
          if (results.length === 0)
            return { toolCalls: [{ id: 'call_refund', name: 'refund', args: { order: '42', amount: 30 } }] };
          const reply = { content: '{"order":"42","refunded":30}' };
          // Its first asking, once the refund has run, is held: its worker is killed meanwhile.
          if (seen.billing.length > 2) return reply;
          billingAsked.open();
          return billingAnswer.until.then(() => reply);
        }
        if (results.length === 0)
          return {
            toolCalls: [{ id: 'call_note', name: 'note', args: { customer: 7, text: 'refund of order 42' } }],
          };
        return { content: 'Noted the refund on customer 7.' };
      },
      { atMost: 7 },
    );
    await cli.client.runs.start(
      {
        goal: 'Customer 7 wants their 30 USD back for order 42.',
        agent: 'triage',
        startedBy: 'dana',
        webhooks: [receiver.url('/hooks')],
      },
      { workflowId: id },
    );
    const billingId = `${id}/call_billing`;
    const crmId = `${id}/call_crm`;

    // The refund waits in billing, a child run, while crm has done its part.
    const waiting = await progressOf(billingId, (p) => p.pendingApprovals.some((a) => a.callId === 'call_refund'));
    expect(waiting).toMatchObject({
      agent: 'billing',
      startedBy: 'dana',
      chain: {
        root: { workflowId: id, goal: 'Customer 7 wants their 30 USD back for order 42.' },
        parents: [{ agent: 'triage', workflowId: id, callId: 'call_billing' }],
        maxDepth: 3,
      },
    });
    expect((await cli.client.runs.result(crmId)).status).toBe('completed');
    expect(effects()).toEqual(['note 7 refund of order 42']);

    // The model saw each agent as a tool named after it, with its description and a task.
    const firstTriage = seen.triage[0];
    expect(offered(firstTriage)).toEqual(['billing', 'crm']);
    expect(firstTriage.tools!.find((t) => t.function.name === 'billing')!.function).toMatchObject({
      description: 'Refunds orders; give it the order and the amount.',
      parameters: { required: ['task'] },
    });
    expect(firstTriage.tools!.find((t) => t.function.name === 'crm')!.function.description).toBe(
      'You are CRM: you keep the customer records.',
    );
    // Billing's own tools and the agents it may call, not triage's.
    expect(offered(seen.billing[0])).toEqual(['crm', 'refund', 'triage']);
    expect(taskOf(seen.billing[0])).toBe('Refund 30 USD on order 42.');

    // `waveloop pending --json` lists the nested call with its chain.
    const listed = await cmd(['pending', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const pending = (JSON.parse(listed.stdout) as PendingDecision[]).filter((d) => d.workflowId.startsWith(id));
    expect(pending).toEqual([
      expect.objectContaining({
        workflowId: billingId,
        kind: 'approval',
        callId: 'call_refund',
        tool: 'refund',
        agent: 'billing',
        startedBy: 'dana',
        chain: expect.objectContaining({
          root: { workflowId: id, goal: 'Customer 7 wants their 30 USD back for order 42.' },
          parents: [{ agent: 'triage', workflowId: id, callId: 'call_billing' }],
        }),
        command: `waveloop approve ${billingId} call_refund`,
      }),
    ]);
    const shown = await cmd(['pending']);
    expect(shown.stdout).toContain(
      `for ${id} ("Customer 7 wants their 30 USD back for order 42.") › triage (call call_billing) › billing`,
    );
    const status = await cmd(['status', billingId]);
    expect(status.stdout).toContain(
      `Called by:  ${id} ("Customer 7 wants their 30 USD back for order 42.") › triage (call call_billing)`,
    );

    // The webhooks the root named hear of the nested wait, which names the root.
    const told = await eventually(
      () => receiver.received.map((r) => JSON.parse(r.raw) as WebhookBody),
      (bodies) => bodies.some((b) => b.event === 'waiting_for_approval'),
      { problem: 'no webhook told of the nested wait' },
    );
    expect(told.find((b) => b.event === 'waiting_for_approval')).toMatchObject({
      workflowId: billingId,
      root: { workflowId: id },
      pending: expect.objectContaining({ callId: 'call_refund', tool: 'refund' }),
    });

    // A worker dies while the refund waits; another takes the tree over.
    await killWorker();
    await startWorker();

    // Erin approves it through the HTTP API, with the child's run id and the call's id.
    const { serve, url } = await serveProcess(cli.env, { cwd: project.dir });
    served = serve;
    const page = async (address: string) =>
      (await fetch(`${url}${address}`, { headers: { cookie: `waveloop_token=${ERIN_TOKEN}` } })).text();
    {
      const headers = { authorization: `Bearer ${ERIN_TOKEN}`, 'content-type': 'application/json' };
      // The worker just started answers the queries of the runs it took over once it has replayed them.
      const overHttp = await eventually(
        async () => {
          const listedOverHttp = await fetch(`${url}/api/pending`, { headers });
          return ((await listedOverHttp.json()) as PendingDecision[]).filter((d) => d.workflowId === billingId);
        },
        (decisions) => decisions.length > 0,
        { problem: '/api/pending never listed the nested call' },
      );
      expect(overHttp).toEqual([expect.objectContaining({ callId: 'call_refund', chain: pending[0].chain })]);
      // The inbox shows the call with its chain, each run a link.
      const inbox = await page('/');
      expect(inbox).toContain(`<a href="/runs/${id}">${id}</a> (“Customer 7 wants their 30 USD back for order 42.”)`);
      expect(inbox).toContain(`› <a href="/runs/${id}">triage</a> (call call_billing)`);
      // The waiting child's page says which agent's call started it, up to the root.
      const childPage = await page(`/runs/${encodeURIComponent(billingId)}`);
      expect(childPage).toMatch(
        /called by an agent:\s*<div class="chain">\s*for <a href="\/runs\/agents-triage-refund">/,
      );
      // The root's page shows the agent call still open, with a link to the child run it waits on.
      const openRoot = await page(`/runs/${id}`);
      expect(openRoot).toMatch(/<strong>billing<\/strong> <span class="muted">running<\/span>/);
      expect(openRoot).toContain(`its run: <a href="/runs/${encodeURIComponent(billingId)}">${billingId}</a>`);
      const approval = `${url}/api/runs/${encodeURIComponent(billingId)}/approvals/call_refund`;
      const approved = await fetch(approval, { method: 'POST', headers, body: JSON.stringify({ approve: true }) });
      expect(approved.status, await approved.clone().text()).toBe(200);
    }
    await eventually(effects, (lines) => lines.length === 2, { problem: 'the refund never ran' });
    // A worker dies again once the refund has run, while billing's model call after it is in flight:
    // the call is asked again by the next worker, the refund is not run again.
    await eventually(
      () => asked,
      (yes) => yes,
      { problem: 'billing never asked its model after the refund' },
    );
    await killWorker();
    billingAnswer.open();
    await startWorker();

    const result = (await cli.client.runs.result(id)) as AgentLoopResult;
    expect(result.status).toBe('completed');
    expect(result.answer).toBe('Done. Billing: {"order":"42","refunded":30} CRM: Noted the refund on customer 7.');
    // One wave of the two agent calls, each naming its child run and how it ended.
    expect(result.waves).toHaveLength(1);
    expect(result.waves[0].calls).toEqual([
      expect.objectContaining({
        id: 'call_billing',
        tool: 'billing',
        ok: true,
        result: '{"order":"42","refunded":30}',
        agentRun: expect.objectContaining({ workflowId: billingId, agent: 'billing', status: 'completed' }),
      }),
      expect.objectContaining({
        id: 'call_crm',
        tool: 'crm',
        ok: true,
        agentRun: expect.objectContaining({ workflowId: crmId, agent: 'crm', status: 'completed' }),
      }),
    ]);
    // The tree's usage: triage's two model calls and the children's two each.
    expect(result.usage.totalTokens).toBe(6 * 110);
    // Billing's last turn was asked twice: by the killed worker, then by the next.
    expect(seen.billing.map(toolMessages).map((r) => r.length)).toEqual([0, 1, 1]);
    const billing = (await cli.client.runs.result(billingId)) as AgentLoopResult;
    expect(billing).toMatchObject({ status: 'completed', output: { order: '42', refunded: 30 } });
    // Once ended, the child still says which agent's call started it: in its result, status and page.
    expect(billing.chain).toEqual(pending[0].chain);
    expect((await cmd(['status', billingId])).stdout).toContain(
      `Called by:  ${id} ("Customer 7 wants their 30 USD back for order 42.") › triage (call call_billing)`,
    );
    expect(await page(`/runs/${encodeURIComponent(billingId)}`)).toMatch(
      /called by an agent:\s*<div class="chain">\s*for <a href="\/runs\/agents-triage-refund">/,
    );
    expect(billing.waves[0].calls[0]).toMatchObject({
      tool: 'refund',
      ok: true,
      approval: { decision: 'approved', by: 'erin' },
    });
    // The root's run page links its children's runs.
    const rootPage = await page(`/runs/${id}`);
    expect(rootPage).toContain(`its run: <a href="/runs/${encodeURIComponent(billingId)}">${billingId}</a>`);
    expect(rootPage).toContain(`its run: <a href="/runs/${encodeURIComponent(crmId)}">${crmId}</a>`);
    // No tool ran twice, whatever the workers went through.
    expect(effects()).toEqual(['note 7 refund of order 42', 'refund 42 30']);
    const started = (await cli.client.runs.handle(id).fetchHistory()).events!.filter(
      (e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType?.name === 'agentLoop',
    );
    expect(started.map((e) => e.startChildWorkflowExecutionInitiatedEventAttributes!.workflowId)).toEqual([
      billingId,
      crmId,
    ]);
    // Replayed in CI (test/replay): a run whose wave starts agent calls, and a child whose call waited.
    await recordHistory(id, cli.client.runs.handle(id));
    await recordHistory(billingId.replace('/', '~'), cli.client.runs.handle(billingId));
    // What the tree changed: the root's ledger lists its children's calls, each under its run.
    const ledger = await cli.client.effects(id);
    expect(ledger.effects.map((e) => [e.workflowId, e.tool, e.approvedBy ?? []])).toEqual([
      [billingId, 'refund', ['erin']],
      [crmId, 'note', []],
    ]);
  });

  it('billing calling triage back is refused as a cycle, and the model reads why', async () => {
    const id = 'agents-cycle';
    let told = '';
    cli.fake.route(
      (request): ScriptedReply => {
        const agent = agentOf(request);
        const results = toolMessages(request);
        if (agent === 'triage')
          return results.length === 0
            ? { toolCalls: [{ id: 'call_billing', name: 'billing', args: { task: 'Ask triage what to refund.' } }] }
            : { content: `Billing said: ${results[0]}` };
        if (agent === 'billing' && results.length === 0)
          return { toolCalls: [{ id: 'call_back', name: 'triage', args: { task: 'What should I refund?' } }] };
        if (agent === 'billing') {
          told = results[0];
          return { content: '{"order":"none","refunded":0}' };
        }
        throw new Error(`crm was not to be asked: ${taskOf(request)}`);
      },
      { atMost: 4 },
    );
    await cli.client.runs.start({ goal: 'Refund whatever is due.', agent: 'triage' }, { workflowId: id });
    const result = (await cli.client.runs.result(id)) as AgentLoopResult;
    expect(result.status).toBe('completed');
    expect(told).toMatch(
      /^Error: refused: triage is already in this chain of agents \(triage → billing\), so calling it would be a cycle\./,
    );
    const billing = (await cli.client.runs.result(`${id}/call_billing`)) as AgentLoopResult;
    expect(billing.waves[0].calls[0]).toMatchObject({ tool: 'triage', ok: false });
    expect(billing.waves[0].calls[0]).not.toHaveProperty('agentRun');
    // No run was started for the refused call.
    await expect(cli.client.runs.handle(`${id}/call_billing/call_back`).describe()).rejects.toThrow();
  });

  it('a call deeper than the root run allows (maxAgentDepth) is refused, and the model reads why', async () => {
    const id = 'agents-depth';
    let told = '';
    cli.fake.route(
      (request): ScriptedReply => {
        const agent = agentOf(request);
        const results = toolMessages(request);
        if (agent === 'triage')
          return results.length === 0
            ? { toolCalls: [{ id: 'call_billing', name: 'billing', args: { task: 'Refund, after asking crm.' } }] }
            : { content: `Billing said: ${results[0]}` };
        if (agent === 'billing' && results.length === 0)
          return { toolCalls: [{ id: 'call_crm', name: 'crm', args: { task: 'Is customer 7 in good standing?' } }] };
        if (agent === 'billing') {
          told = results[0];
          return { content: '{"order":"none","refunded":0}' };
        }
        throw new Error(`crm was not to be asked: ${taskOf(request)}`);
      },
      { atMost: 4 },
    );
    await cli.client.runs.start({ goal: 'Refund if due.', agent: 'triage', maxAgentDepth: 1 }, { workflowId: id });
    const result = (await cli.client.runs.result(id)) as AgentLoopResult;
    expect(result.status).toBe('completed');
    expect(told).toBe(
      'Error: refused: the chain of agents (triage → billing) is already 1 deep, the most this run allows (maxAgentDepth). Do this part yourself.',
    );
    const billing = await cli.client.runs.progress(`${id}/call_billing`);
    expect(billing.chain?.maxDepth).toBe(1);
  });

  it("a child stopped by what the parent's token budget left it ends budget_exhausted, and the parent still answers; a bad task is an error the model reads", async () => {
    const id = 'agents-budget';
    const big = { prompt_tokens: 380, completion_tokens: 20, total_tokens: 400 };
    let crmTold: string[] = [];
    cli.fake.route(
      (request): ScriptedReply => {
        const agent = agentOf(request);
        const results = toolMessages(request);
        if (agent === 'triage') {
          if (results.length === 0)
            return {
              toolCalls: [
                { id: 'call_crm', name: 'crm', args: { task: 'Note the complaint on customer 9.' } },
                { id: 'call_bad', name: 'billing', args: { order: '42' } },
              ],
            };
          crmTold = results;
          return { content: `Partly done: ${results[0]}` };
        }
        if (agent === 'crm' && results.length === 0)
          return {
            toolCalls: [{ id: 'call_note', name: 'note', args: { customer: 9, text: 'complaint' } }],
            usage: big,
          };
        if (agent === 'crm') {
          // The wrap-up call: no tools offered, told to stop.
          expect(offered(request)).toEqual([]);
          return { content: 'Noted the complaint; stopped for the budget.' };
        }
        throw new Error('billing was not to be asked');
      },
      { atMost: 4 },
    );
    // Triage has 1,000 tokens; after its first call (110) its two agent calls share 80 % of the 890 left: 356 each.
    await cli.client.runs.start(
      { goal: 'Customer 9 complains.', agent: 'triage', maxTokens: 1000 },
      { workflowId: id },
    );
    const result = (await cli.client.runs.result(id)) as AgentLoopResult;
    expect(result.status).toBe('completed');
    expect(result.answer).toMatch(/^Partly done: \(crm stopped early: budget_exhausted\) Noted the complaint/);
    const crm = (await cli.client.runs.result(`${id}/call_crm`)) as AgentLoopResult;
    expect(crm.status).toBe('budget_exhausted');
    expect(crm.usage.totalTokens).toBe(400 + 110);
    expect((await cli.client.runs.progress(`${id}/call_crm`)).chain?.budget).toEqual({ tokens: 356 });
    // The call without a task never started a run: the model read what was wrong.
    expect(crmTold[1]).toMatch(/^Error: an agent takes only \{ "task": "…" \}; unknown field: order/);
    expect(result.waves[0].calls[1]).toMatchObject({ tool: 'billing', ok: false });
  });

  it('cancelling the parent cancels the child waiting in it', async () => {
    const id = 'agents-cancel';
    cli.fake.route(
      (request): ScriptedReply => {
        const agent = agentOf(request);
        if (agent === 'triage')
          return { toolCalls: [{ id: 'call_billing', name: 'billing', args: { task: 'Refund order 7.' } }] };
        if (agent === 'billing')
          return { toolCalls: [{ id: 'call_refund', name: 'refund', args: { order: '7', amount: 5 } }] };
        throw new Error('crm was not to be asked');
      },
      { atMost: 2 },
    );
    await cli.client.runs.start({ goal: 'Refund order 7.', agent: 'triage' }, { workflowId: id });
    const childId = `${id}/call_billing`;
    await progressOf(childId, (p) => p.pendingApprovals.length === 1);
    await cli.client.runs.cancel(id);
    const result = (await cli.client.runs.result(id)) as AgentLoopResult;
    expect(result.status).toBe('cancelled');
    const child = (await cli.client.runs.result(childId)) as AgentLoopResult;
    expect(child.status).toBe('cancelled');
    expect(effects()).not.toContain('refund 7 5');
  });

  it('a run offering an unknown agent, or itself, is refused when it starts, naming the problem', async () => {
    const failure = async (input: AgentLoopInput) => {
      const { workflowId } = await cli.client.runs.start(input);
      const error = await cli.client.runs.result(workflowId).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(WorkflowFailedError);
      const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
      expect(cause.type).toBe('InvalidInput');
      return cause.message;
    };
    expect(await failure({ goal: 'Anything.', agent: 'crm', agents: ['biling'] })).toMatch(
      /^agents names "biling", which is not an agent of this worker\. Known agents: .*billing/,
    );
    expect(await failure({ goal: 'Anything.', agent: 'crm', agents: ['crm'] })).toBe(
      'agent "crm" offers itself as a tool: every call of it would be a cycle.',
    );
  });
});
