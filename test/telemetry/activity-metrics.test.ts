import { ApplicationFailure, type MetricMeter, type MetricTags } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { activityMetrics } from '../../src/telemetry/activity-metrics';

/**
 * A unit test of what `activityMetrics` records for each kind of activity, through the SDK's
 * `MockActivityEnvironment` and a meter that keeps what it is given. What a worker really exports
 * (decoded from its Prometheus endpoint) is checked by test/e2e/telemetry-worker-process.test.ts.
 */

/** A metric meter that keeps every value recorded, with its metric's name and its tags. */
function recordingMeter() {
  const recorded: Array<{ name: string; value: number; tags: MetricTags }> = [];
  const instrument = (name: string) => {
    const record = (value: number, tags: MetricTags = {}) => recorded.push({ name, value, tags });
    return { name, add: record, record, set: record, withTags: () => instrument(name) };
  };
  const meter = {
    createCounter: instrument,
    createHistogram: instrument,
    createGauge: instrument,
    withTags: () => meter,
  } as unknown as MetricMeter;
  // Without the labels Temporal adds to every activity's metrics (namespace, taskQueue, activityType).
  const own = ({ namespace: _n, taskQueue: _q, activityType: _a, ...tags }: MetricTags) => tags;
  return {
    meter,
    values: (name: string) =>
      recorded.filter((r) => r.name === name).map(({ value, tags }) => ({ value, tags: own(tags) })),
  };
}

function environment(activityType: string) {
  const { meter, values } = recordingMeter();
  const env = new MockActivityEnvironment(
    { activityType },
    {
      metricMeter: meter,
      logger: new DefaultLogger('ERROR'),
      interceptors: [activityMetrics({ 'house-model': { inputPerMTok: 1, outputPerMTok: 2 } })],
    },
  );
  return { env, values };
}

describe('activityMetrics, unit: what it records with a recording meter', () => {
  it('a model call: one attempt, its latency, its tokens and its cost by model (prices as createWorker has them)', async () => {
    const { env, values } = environment('callModel');
    const usage = { promptTokens: 1000, completionTokens: 500, totalTokens: 1500 };
    await env.run(async (_input: { model: string }) => ({ usage }), { model: 'house-model' });
    expect(values('waveloop_model_calls')).toEqual([{ value: 1, tags: { model: 'house-model', outcome: 'ok' } }]);
    expect(values('waveloop_model_call_latency')).toEqual([
      { value: expect.any(Number), tags: { model: 'house-model', outcome: 'ok' } },
    ]);
    expect(values('waveloop_model_tokens')).toEqual([
      { value: 1000, tags: { model: 'house-model', type: 'input' } },
      { value: 500, tags: { model: 'house-model', type: 'output' } },
    ]);
    expect(values('waveloop_model_call_cost_usd')).toEqual([
      { value: (1000 * 1 + 500 * 2) / 1_000_000, tags: { model: 'house-model' } },
    ]);
  });

  it('a model call that fails counts by its failure type; a model without a price has no cost', async () => {
    const { env, values } = environment('assessGoal');
    await expect(
      env.run(
        async (_input: { model: string }) => {
          throw ApplicationFailure.create({ type: 'ModelRateLimit', message: 'slow down' });
        },
        { model: 'unpriced-model' },
      ),
    ).rejects.toThrow('slow down');
    expect(values('waveloop_model_calls')).toEqual([
      { value: 1, tags: { model: 'unpriced-model', outcome: 'ModelRateLimit' } },
    ]);
    const { env: again, values: more } = environment('summarizeTranscript');
    await again.run(
      async (_input: { model: string }) => ({ usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } }),
      { model: 'unpriced-model' },
    );
    expect(more('waveloop_model_tokens')).toHaveLength(2);
    expect(more('waveloop_model_call_cost_usd')).toEqual([]);
  });

  it('tool calls count by tool and outcome; other activities are not counted', async () => {
    const { env, values } = environment('runTool');
    await env.run(async (_input: { name: string }) => ({ content: 'ok' }), { name: 'get_user' });
    await expect(
      env.run(
        async (_input: { name: string }) => {
          throw ApplicationFailure.create({ type: 'ToolError', message: 'No user 7', nonRetryable: true });
        },
        { name: 'get_user' },
      ),
    ).rejects.toThrow('No user 7');
    expect(values('waveloop_tool_calls')).toEqual([
      { value: 1, tags: { tool: 'get_user', outcome: 'ok' } },
      { value: 1, tags: { tool: 'get_user', outcome: 'ToolError' } },
    ]);
    expect(values('waveloop_tool_call_latency').map((v) => v.tags.outcome)).toEqual(['ok', 'ToolError']);

    const { env: other, values: none } = environment('resolveRun');
    await other.run(async () => ({ agent: 'default' }));
    expect([...none('waveloop_model_calls'), ...none('waveloop_tool_calls')]).toEqual([]);
  });
});
