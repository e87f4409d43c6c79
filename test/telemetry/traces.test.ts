import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, ToolError } from '../../src/tools/define';
import { telemetryWorkflowModules } from '../../src/telemetry/workflow-modules';
import { FAKE_USAGE } from '../support/fake-model';
import { Harness, type TestTelemetry, type WorkflowBundle } from '../support/harness';
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
  it('a run with a two-call wave: invoke_agent over chat and execute_tool spans over Temporal’s, tokens, a failed call’s status, no content', async () => {
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
      { workflowId, extraTools: [lookupInvoice], telemetry: telemetry({ url: `${receiver.endpoint}/v1/traces`, protocol: 'http/json' }) },
    );
    expect(result).toMatchObject({ status: 'completed', iterations: 2 });

    // Spans are exported as the worker stops (runUntil): all of them are here now.
    const spans = receiver.spans.filter((span) => span.traceId === receiver.ofWorkflow(workflowId)[0]?.traceId);
    const t = tree(spans);
    expect(new Set(spans.map((span) => span.encoding))).toEqual(new Set(['application/json']));

    const run = t.one('RunWorkflow:agentLoop');
    const agent = t.one('invoke_agent default');
    expect(t.parentOf(agent)).toBe(run);
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
      // The model call's activity, started and run, sits beneath it.
      const [started] = spans.filter((span) => span.name === 'StartActivity:callModel' && t.parentOf(span) === chat);
      expect(started).toBeDefined();
      expect(spans.filter((span) => span.name === 'RunActivity:callModel' && t.parentOf(span) === started)).toHaveLength(1);
    }
    expect(chats[0].attributes['waveloop.wave.size']).toBe(2);

    const search = t.one('execute_tool search_users');
    const invoice = t.one('execute_tool lookup_invoice');
    for (const [span, id] of [
      [search, 'call_search'],
      [invoice, 'call_invoice'],
    ] as const) {
      expect(t.parentOf(span)).toBe(agent);
      expect(span.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.call.id': id, 'waveloop.iteration': 1 });
      const [started] = spans.filter((s) => s.name === 'StartActivity:runTool' && t.parentOf(s) === span);
      expect(spans.filter((s) => s.name === 'RunActivity:runTool' && t.parentOf(s) === started)).toHaveLength(1);
    }
    expect(search.status.code).toBe(0); // unset, as OpenTelemetry asks of instrumentation for what succeeded
    // The failed call: an error status and its type, without the error's text (tool output).
    expect(invoice.status).toEqual({ code: 2 });
    expect(invoice.attributes['error.type']).toBe('ToolError');

    // No prompt, reply, argument, result or error text, and never the API key.
    const exported = JSON.stringify(spans);
    for (const secret of ['Find Bob', 'Bob has no invoice', 'INV-9', 'secret-customer-7', 'test-key']) expect(exported).not.toContain(secret);
    expect(exported).not.toContain('gen_ai.input.messages');
  });

  it('WAVELOOP content and protobuf: the goal, the replies, tool arguments, results and errors are in the spans', async () => {
    h.fake.script({ toolCalls: [{ name: 'lookup_invoice', args: { number: 'INV-7' } }] }, { content: 'There is no INV-7.' });
    const workflowId = 'traces-content';
    await h.run(
      { goal: 'Look up invoice INV-7' },
      {
        workflowId,
        extraTools: [lookupInvoice],
        telemetry: telemetry({ url: `${receiver.endpoint}/v1/traces`, protocol: 'http/protobuf', content: true, serviceName: 'billing-agents', resourceAttributes: { 'deployment.environment': 'test' } }),
      },
    );
    const spans = receiver.spans.filter((span) => span.traceId === receiver.ofWorkflow(workflowId)[0]?.traceId);
    const t = tree(spans);
    expect(new Set(spans.map((span) => span.encoding))).toEqual(new Set(['application/x-protobuf']));
    const agent = t.one('invoke_agent default');
    expect(agent.resource).toMatchObject({ 'service.name': 'billing-agents', 'deployment.environment': 'test' });
    expect(JSON.parse(agent.attributes['gen_ai.input.messages'] as string)).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'Look up invoice INV-7' }] }]);
    expect(agent.attributes['gen_ai.output.messages']).toContain('There is no INV-7.');
    const tool = t.one('execute_tool lookup_invoice');
    expect(JSON.parse(tool.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({ number: 'INV-7' });
    expect(tool.status).toEqual({ code: 2, message: 'No invoice INV-7 for secret-customer-7' });
    const [lastChat] = t.named('chat fake-model').filter((chat) => chat.attributes['waveloop.iteration'] === 2);
    expect(lastChat.attributes['gen_ai.output.messages']).toContain('There is no INV-7.');
  });
});
