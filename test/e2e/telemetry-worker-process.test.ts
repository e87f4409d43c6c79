import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WaveloopClient } from '../../src/client/waveloop-client';
import { approveUpdate } from '../../src/contract/messages';
import { waveloopLive } from '../support/cli';
import { FAKE_USAGE } from '../support/fake-model';
import { Harness, waitForProgress } from '../support/harness';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { freePort } from '../support/ports';
import { scrape, type Scrape } from '../support/prometheus';
import { eventually, eventuallyMatches } from '../support/wait';

/**
 * Traces and metrics of the real `waveloop worker` (the built CLI, `npm test` builds it first),
 * configured only by the environment, through a crash: the worker that starts a run is killed
 * (SIGKILL) while the run waits for an approval, and another takes the run over. The second worker
 * replays the run; nothing it replays is exported or counted again.
 */

const h = new Harness();
const receiver = new OtlpReceiver();
beforeAll(async () => {
  await Promise.all([h.start(), receiver.start()]);
});
afterAll(async () => {
  await h.stop();
  await receiver.stop();
});

/** A `waveloop worker` process serving metrics at `metrics`, ready when it says it polls. */
async function startWorker(env: Record<string, string>, metrics: string) {
  const worker = waveloopLive(['worker'], { ...env, WAVELOOP_METRICS_ADDRESS: metrics });
  await eventuallyMatches(() => worker.stderr(), /Worker polling task queue/, { attempts: 600 });
  return worker;
}

/** Scrapes `address` until `predicate` holds for what it serves. */
function scraped(address: string, predicate: (metrics: Scrape) => boolean): Promise<Scrape> {
  return eventually(
    () => scrape(address),
    (metrics): metrics is Scrape => metrics !== undefined && predicate(metrics),
    { problem: `The metrics of ${address} never moved as expected.` },
  ) as Promise<Scrape>;
}

describe('a worker process with OTEL_EXPORTER_OTLP_ENDPOINT and WAVELOOP_METRICS_ADDRESS', () => {
  it('exports each span of a run once and counts each step once, though another worker took the run over after a crash', async () => {
    const bob = h.db.prepare("SELECT id FROM users WHERE name LIKE 'Bob%'").get() as { id: number };
    h.fake.script(
      {
        toolCalls: [
          { name: 'search_users', args: { name: 'Bob' }, id: 'call_search' },
          { name: 'update_user', args: { id: bob.id, company: 'EPAM' }, id: 'call_update' },
        ],
      },
      { content: 'Bob works for EPAM now.' },
    );
    const queue = `telemetry-${Date.now()}`;
    const env = {
      TEMPORAL_ADDRESS: h.address,
      WAVELOOP_TASK_QUEUE: queue,
      WAVELOOP_DATA_DIR: h.dataDir,
      OPENAI_BASE_URL: h.fake.baseURL,
      OPENAI_API_KEY: 'test-key',
      WAVELOOP_MODEL: 'fake-model',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_SERVICE_NAME: 'back-office-worker',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test',
      // Batches leave every 100 ms, so the first worker has sent its spans when it is killed.
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    const [firstMetrics, secondMetrics] = [`127.0.0.1:${await freePort()}`, `127.0.0.1:${await freePort()}`];
    const client = new WaveloopClient(h.client, queue);

    const first = await startWorker(env, firstMetrics);
    const workflowId = `${queue}-run`;
    try {
      const handle = await client.runs.start({ goal: 'Move Bob to EPAM', agent: 'back-office' }, { workflowId });
      const waiting = await waitForProgress(
        h.client,
        handle,
        (p) => p.pendingApprovals.length === 1 && p.waves.length === 0 && p.settling?.calls.length === 1,
      );
      expect(waiting.pendingApprovals[0]).toMatchObject({ callId: 'call_update', tool: 'update_user' });
      // During the run: Temporal's metrics and waveloop's, the model call and the lookup counted.
      const during = await scraped(
        firstMetrics,
        (m) => m.value('waveloop_tool_calls', { tool: 'search_users', outcome: 'ok' }) === 1,
      );
      expect(during.value('waveloop_runs_started', { workflowType: 'agentLoop' })).toBe(1);
      expect(during.value('waveloop_model_calls', { model: 'fake-model', outcome: 'ok' })).toBe(1);
      expect(during.value('waveloop_model_tokens', { model: 'fake-model', type: 'input' })).toBe(
        FAKE_USAGE.prompt_tokens,
      );
      expect(during.value('waveloop_model_call_latency_count', { model: 'fake-model' })).toBe(1);
      expect(during.value('waveloop_runs_ended')).toBe(0);
      expect(during.has('temporal_workflow_task_execution_latency_count')).toBe(true);
      // The first worker has exported what ended: the first model call and the lookup.
      await eventually(
        () => receiver.ofWorkflow(workflowId).map((span) => span.name),
        (names) => names.includes('chat fake-model') && names.includes('execute_tool search_users'),
      );
    } finally {
      first.kill('SIGKILL');
      await first.done;
    }

    // Another worker takes the run over and replays it: the approval goes to it. (The run's tasks
    // would wait for the dead worker's sticky queue to time out first; the test spares that wait.)
    await h.client.workflowService.resetStickyTaskQueue({ namespace: 'default', execution: { workflowId } });
    const second = await startWorker(env, secondMetrics);
    try {
      await h.client.workflow.getHandle(workflowId).executeUpdate(approveUpdate, { args: ['call_update'] });
      expect(await client.runs.result(workflowId)).toMatchObject({
        status: 'completed',
        answer: 'Bob works for EPAM now.',
      });

      const after = await scraped(secondMetrics, (m) => m.value('waveloop_runs_ended', { status: 'completed' }) === 1);
      // Only what happened on this worker: the run's start and first steps were the first worker's.
      expect(after.value('waveloop_runs_started')).toBe(0);
      expect(after.value('waveloop_approvals_decided', { outcome: 'approved' })).toBe(1);
      expect(after.value('waveloop_model_calls', { model: 'fake-model' })).toBe(1);
      expect(after.value('waveloop_tool_calls', { tool: 'update_user', outcome: 'ok' })).toBe(1);
      expect(after.value('waveloop_tool_calls', { tool: 'search_users' })).toBe(0);

      const spans = await eventually(
        () => receiver.ofWorkflow(workflowId),
        (found) => found.some((span) => span.name === 'invoke_agent back-office'),
      );
      expectOnce(spans, workflowId);
    } finally {
      second.kill('SIGTERM');
      await second.done;
    }
    h.fake.assertDone();
  });
});

/** One trace, every span in it once, every parent in it: though two workers exported it. */
function expectOnce(workflowSpans: ReceivedSpan[], workflowId: string): void {
  const traceId = workflowSpans.find((span) => span.name === 'invoke_agent back-office')!.traceId;
  const spans = receiver.spans.filter((span) => span.traceId === traceId);
  const elsewhere = workflowSpans.filter((span) => span.traceId !== traceId);
  expect(elsewhere).toEqual([]);
  expect(new Set(spans.map((span) => span.spanId)).size).toBe(spans.length);
  const count = (name: string) => spans.filter((span) => span.name === name).length;
  expect(count('invoke_agent back-office')).toBe(1);
  expect(
    spans
      .filter((span) => span.name === 'chat fake-model')
      .map((span) => span.attributes['waveloop.iteration'])
      .sort(),
  ).toEqual([1, 2]);
  expect(count('execute_tool search_users')).toBe(1);
  expect(count('execute_tool update_user')).toBe(1);
  expect(count('RunActivity:callModel')).toBe(2);
  expect(count('RunActivity:runTool')).toBe(2);

  // The spans the first worker sent hang under those the second one sent: the replayed spans kept their ids.
  const ids = new Set(spans.map((span) => span.spanId));
  for (const span of spans)
    if (span.name !== 'invoke_agent back-office')
      expect(ids.has(span.parentSpanId!), `${span.name}'s parent`).toBe(true);

  const agent = spans.find((span) => span.name === 'invoke_agent back-office')!;
  expect(agent.attributes['waveloop.workflow.id']).toBe(workflowId);
  expect(agent.resource).toMatchObject({ 'service.name': 'back-office-worker', 'deployment.environment': 'test' });
  expect(agent.events).toEqual([
    {
      name: 'waveloop.approval',
      attributes: {
        'gen_ai.tool.call.id': 'call_update',
        'gen_ai.tool.name': 'update_user',
        'waveloop.approval.outcome': 'approved',
      },
    },
  ]);
  expect(spans.find((span) => span.name === 'execute_tool update_user')!.attributes['waveloop.approval.outcome']).toBe(
    'approved',
  );
  expect(new Set(spans.map((span) => span.encoding))).toEqual(new Set(['application/x-protobuf']));
}
