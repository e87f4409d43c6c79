import * as fs from 'node:fs';
import * as path from 'node:path';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Client } from '@temporalio/client';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { approveUpdate } from '../../src/contract/messages';
import { waveloopDataConverter } from '../../src/payloads/data-converter';
import { telemetryWorkflowModules } from '../../src/telemetry/workflow-modules';
import { defineTool, ToolError } from '../../src/tools/define';
import { FAKE_USAGE } from '../support/fake-model';
import { achievement, assess, decomposition, goalModel, synthesis } from '../support/goal-model';
import { Harness, waitForProgress, workflowBundle, type TestTelemetry, type WorkflowBundle } from '../support/harness';
import { HISTORIES_DIR, replayWorkflowId } from '../support/history';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { buildWorkflowBundle } from '../support/workflow-bundle';

const h = new Harness();
const receiver = new OtlpReceiver();
let bundle: WorkflowBundle;
beforeAll(async () => {
  [bundle] = await Promise.all([
    buildWorkflowBundle(undefined, telemetryWorkflowModules({ tracing: true, metrics: true })),
    h.start(),
    receiver.start(),
  ]);
});
afterAll(async () => {
  await h.stop();
  await receiver.stop();
});

const telemetry = (tracing: TestTelemetry['tracing']): TestTelemetry => ({ tracing, workflowBundle: bundle });

/** A tool that reads nothing and fails, as a tool does when the model asks for something that is not there. */
const lookupInvoice = defineTool({
  name: 'lookup_invoice',
  description: 'Looks up an invoice.',
  parameters: z.object({ number: z.string() }),
  execute: ({ number }) => {
    throw new ToolError(`No invoice ${number} for secret-customer-7`);
  },
});

/** The spans of one trace by name, with a way to check who is whose parent. */
function tree(spans: ReceivedSpan[]) {
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  return {
    named: (name: string) => spans.filter((span) => span.name === name),
    one(name: string): ReceivedSpan {
      const found = spans.filter((span) => span.name === name);
      expect(found.map((span) => span.name)).toEqual([name]);
      return found[0];
    },
    parentOf: (span: ReceivedSpan) => (span.parentSpanId ? byId.get(span.parentSpanId) : undefined),
  };
}

describe('traces', () => {
  it('a run with a two-call wave: invoke_agent over chat and execute_tool spans over the attempts’, tokens, a failed call’s status, no content', async () => {
    h.fake.script(
      {
        toolCalls: [
          { name: 'search_users', args: { name: 'Bob' }, id: 'call_search' },
          { name: 'lookup_invoice', args: { number: 'INV-9' }, id: 'call_invoice' },
        ],
      },
      { content: 'Bob has no invoice INV-9.' },
    );
    const workflowId = 'traces-two-call-wave';
    const { result } = await h.run(
      { goal: 'Find Bob and his invoice INV-9', tools: ['search_users', 'lookup_invoice'] },
      {
        workflowId,
        extraTools: [lookupInvoice],
        telemetry: telemetry({ url: `${receiver.endpoint}/v1/traces`, protocol: 'http/json' }),
      },
    );
    expect(result).toMatchObject({ status: 'completed', iterations: 2 });

    // Spans are exported as the worker stops (runUntil): all of them are here now.
    const spans = receiver.spans.filter((span) => span.traceId === receiver.ofWorkflow(workflowId)[0]?.traceId);
    const t = tree(spans);
    expect(new Set(spans.map((span) => span.encoding))).toEqual(new Set(['application/json']));

    // The run's span is the root: nothing traced started it.
    const agent = t.one('invoke_agent default');
    expect(agent.parentSpanId).toBeUndefined();
    expect(agent.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'default',
      'gen_ai.request.model': 'fake-model',
      'waveloop.workflow.id': workflowId,
      'waveloop.status': 'completed',
      'waveloop.iterations': 2,
      'gen_ai.usage.input_tokens': 2 * FAKE_USAGE.prompt_tokens,
      'gen_ai.usage.output_tokens': 2 * FAKE_USAGE.completion_tokens,
    });
    expect(agent.resource['service.name']).toBe('waveloop');

    const chats = t.named('chat fake-model');
    expect(chats.map((chat) => chat.attributes['waveloop.iteration'])).toEqual([1, 2]);
    for (const chat of chats) {
      expect(t.parentOf(chat)).toBe(agent);
      expect(chat.kind).toBe(3); // client
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'fake-model',
        'gen_ai.response.model': 'fake-model',
        'gen_ai.usage.input_tokens': FAKE_USAGE.prompt_tokens,
        'gen_ai.usage.output_tokens': FAKE_USAGE.completion_tokens,
        'waveloop.activity': 'callModel',
      });
      // The model call's activity, Temporal's span of its attempt, sits beneath it.
      expect(spans.filter((span) => span.name === 'RunActivity:callModel' && t.parentOf(span) === chat)).toHaveLength(
        1,
      );
    }
    expect(chats[0].attributes['waveloop.wave.size']).toBe(2);

    const search = t.one('execute_tool search_users');
    const invoice = t.one('execute_tool lookup_invoice');
    for (const [span, id] of [
      [search, 'call_search'],
      [invoice, 'call_invoice'],
    ] as const) {
      expect(t.parentOf(span)).toBe(agent);
      expect(span.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.call.id': id,
        'waveloop.iteration': 1,
      });
      expect(spans.filter((s) => s.name === 'RunActivity:runTool' && t.parentOf(s) === span)).toHaveLength(1);
    }
    expect(search.status.code).toBe(0); // unset, as OpenTelemetry asks of instrumentation for what succeeded
    // The failed call: an error status and its type, without the error's text (tool output).
    expect(invoice.status).toEqual({ code: 2 });
    expect(invoice.attributes['error.type']).toBe('ToolError');

    // No prompt, reply, argument, result or error text, and never the API key.
    const exported = JSON.stringify(spans);
    for (const secret of ['Find Bob', 'Bob has no invoice', 'INV-9', 'secret-customer-7', 'test-key'])
      expect(exported).not.toContain(secret);
    expect(exported).not.toContain('gen_ai.input.messages');
  });

  it('WAVELOOP content and protobuf: the goal, the replies, tool arguments, results and errors are in the spans', async () => {
    h.fake.script(
      { toolCalls: [{ name: 'lookup_invoice', args: { number: 'INV-7' } }] },
      { content: 'There is no INV-7.' },
    );
    const workflowId = 'traces-content';
    await h.run(
      { goal: 'Look up invoice INV-7' },
      {
        workflowId,
        extraTools: [lookupInvoice],
        telemetry: telemetry({
          url: `${receiver.endpoint}/v1/traces`,
          protocol: 'http/protobuf',
          content: true,
          serviceName: 'billing-agents',
          resourceAttributes: { 'deployment.environment': 'test' },
        }),
      },
    );
    const spans = receiver.spans.filter((span) => span.traceId === receiver.ofWorkflow(workflowId)[0]?.traceId);
    const t = tree(spans);
    expect(new Set(spans.map((span) => span.encoding))).toEqual(new Set(['application/x-protobuf']));
    const agent = t.one('invoke_agent default');
    expect(agent.resource).toMatchObject({ 'service.name': 'billing-agents', 'deployment.environment': 'test' });
    expect(JSON.parse(agent.attributes['gen_ai.input.messages'] as string)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Look up invoice INV-7' }] },
    ]);
    expect(agent.attributes['gen_ai.output.messages']).toContain('There is no INV-7.');
    const tool = t.one('execute_tool lookup_invoice');
    expect(JSON.parse(tool.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({ number: 'INV-7' });
    expect(tool.status).toEqual({ code: 2, message: 'No invoice INV-7 for secret-customer-7' });
    const [lastChat] = t.named('chat fake-model').filter((chat) => chat.attributes['waveloop.iteration'] === 2);
    expect(lastChat.attributes['gen_ai.output.messages']).toContain('There is no INV-7.');
  });

  it('a run started by a client with Temporal’s client interceptor: its span is under the client’s StartWorkflow span', async () => {
    h.fake.script({ content: 'Hello.' });
    const started = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(started)] }).getTracer('client');
    const client = new Client({
      connection: h.client.connection,
      dataConverter: waveloopDataConverter(h.blobStore),
      interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor({ tracer })] },
    });
    const { worker, taskQueue } = await h.worker({ telemetry: telemetry({ url: `${receiver.endpoint}/v1/traces` }) });
    await worker.runUntil(() =>
      client.workflow.execute('agentLoop', { taskQueue, workflowId: 'traces-client', args: [{ goal: 'Say hello' }] }),
    );
    const [start] = started.getFinishedSpans();
    expect(start.name).toBe('StartWorkflow:agentLoop');
    const agent = receiver.ofWorkflow('traces-client').find((span) => span.name === 'invoke_agent default')!;
    expect([agent.traceId, agent.parentSpanId]).toEqual([start.spanContext().traceId, start.spanContext().spanId]);
  });

  it('a goal tree is one trace: each goal an invoke_agent span under its parent goal’s, its tool loop’s under its own', async () => {
    const GOAL = 'Plan the billing review';
    const [FIND, DRAFT] = ['Find the overdue customers', 'Draft the reminder'];
    const router = goalModel({
      [GOAL]: {
        assessment: [assess.decompose()],
        decomposition: [decomposition(FIND, DRAFT)],
        achievement: [achievement(true)],
        synthesis: [synthesis('Review planned.')],
      },
      [FIND]: { assessment: [assess.tools()], agent: [{ content: 'Initech is overdue.' }] },
      [DRAFT]: { assessment: [assess.answer()], synthesis: [synthesis('Dear customer, …')] },
    });
    h.fake.script(...router.steps);
    const workflowId = 'traces-goal-tree';
    const { result } = await h.pursue(
      { goal: GOAL },
      { workflowId, telemetry: telemetry({ url: `${receiver.endpoint}/v1/traces`, protocol: 'http/json' }) },
    );
    router.assertDone();
    expect(result!.status).toBe('achieved');

    const root = receiver.spans.find(
      (span) => span.name === 'invoke_agent goal' && span.attributes['waveloop.workflow.id'] === workflowId,
    )!;
    const spans = receiver.spans.filter((span) => span.traceId === root.traceId);
    const t = tree(spans);
    /** The nearest invoke_agent span above `span`. */
    const agentAbove = (span: ReceivedSpan): ReceivedSpan | undefined => {
      for (let p = t.parentOf(span); p; p = t.parentOf(p)) if (p.name.startsWith('invoke_agent')) return p;
      return undefined;
    };
    const agents = t.named('invoke_agent goal').concat(t.named('invoke_agent default'));
    const byWorkflow = new Map(agents.map((span) => [span.attributes['waveloop.workflow.id'], span]));
    // The root, its two sub-goals, and the tool loop of the first: all in the root's trace.
    expect([...byWorkflow.keys()].sort()).toEqual([
      workflowId,
      `${workflowId}/1`,
      `${workflowId}/1/exec`,
      `${workflowId}/2`,
    ]);
    expect(agentAbove(byWorkflow.get(workflowId)!)).toBeUndefined();
    expect(agentAbove(byWorkflow.get(`${workflowId}/1`)!)).toBe(byWorkflow.get(workflowId));
    expect(agentAbove(byWorkflow.get(`${workflowId}/2`)!)).toBe(byWorkflow.get(workflowId));
    expect(agentAbove(byWorkflow.get(`${workflowId}/1/exec`)!)).toBe(byWorkflow.get(`${workflowId}/1`));
    expect(byWorkflow.get(workflowId)!.attributes).toMatchObject({
      'waveloop.goal.depth': 0,
      'waveloop.status': 'achieved',
    });
    expect(byWorkflow.get(`${workflowId}/1`)!.attributes).toMatchObject({
      'waveloop.goal.depth': 1,
      'waveloop.status': 'achieved',
    });
    // Each goal's model calls are chat spans of its own.
    const steps = t.named('chat fake-model').filter((chat) => agentAbove(chat) === byWorkflow.get(workflowId));
    expect(steps.map((chat) => chat.attributes['waveloop.activity'])).toEqual([
      'assessGoal',
      'decomposeGoal',
      'checkAchieved',
      'synthesizeGoal',
    ]);
  });
});

describe('traces: replay', () => {
  it('every recorded history replays with the telemetry interceptors in the bundle (turning them on changes no decision)', async () => {
    const files = fs.readdirSync(HISTORIES_DIR).filter((file) => file.endsWith('.json'));
    expect(files.length).toBeGreaterThanOrEqual(4);
    const histories = files.map((file) => ({
      workflowId: replayWorkflowId(file),
      history: historyFromJSON(JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8'))),
    }));
    const failed: string[] = [];
    // A replay worker calls no sink, but wants the spans' sink registered (as a traced worker has it).
    const sinks = { exporter: { export: { fn: () => undefined } } };
    for await (const result of Worker.runReplayHistories(
      { workflowBundle: bundle, dataConverter: waveloopDataConverter(), sinks },
      histories,
    )) {
      if (result.error) failed.push(`${result.workflowId}: ${result.error.message}`);
    }
    expect(failed).toEqual([]);
  });

  it('a traced run with an approval replays without them (turning them off changes no decision either)', async () => {
    const bob = h.db.prepare("SELECT id FROM users WHERE name LIKE 'Bob%'").get() as { id: number };
    h.fake.script(
      {
        toolCalls: [
          { name: 'get_user', args: { id: bob.id } },
          { name: 'update_user', args: { id: bob.id, company: 'Umbrella' } },
        ],
      },
      { content: 'Done.' },
    );
    const { handle, result } = await h.run(
      { goal: 'Move Bob to Umbrella', agent: 'back-office' },
      {
        telemetry: telemetry({ url: `${receiver.endpoint}/v1/traces` }),
        during: async (run) => {
          const waiting = await waitForProgress(h.client, run, (p) => p.pendingApprovals.length === 1);
          await run.executeUpdate(approveUpdate, { args: [waiting.pendingApprovals[0].callId] });
        },
      },
    );
    expect(result!.status).toBe('completed');
    const history = await handle.fetchHistory();
    await Worker.runReplayHistory(
      { workflowBundle: await workflowBundle(), dataConverter: waveloopDataConverter() },
      history,
      handle.workflowId,
    );
  });
});
