import { defaultPayloadConverter } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AGENT_LOOP_WORKFLOW } from '../../src/contract/agent-loop';
import { defineTool } from '../../src/tools/define';
import { throughputTuning } from '../../src/worker';
import { Harness } from '../support/harness';
import { activities, payloadTexts, recordHistory, withoutResult } from '../support/history';

const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

const exchangeRate = defineTool({
  name: 'exchange_rate',
  description: 'The exchange rate between two currencies (a cheap, read-only lookup).',
  parameters: z.object({ from: z.string(), to: z.string() }),
  localActivity: true,
  execute: ({ from, to }) => ({ from, to, rate: from === 'EUR' && to === 'USD' ? 1.08 : 1 }),
});

describe('agentLoop: local-activity tools', () => {
  it('localActivity: a read-only tool runs as a local activity (a marker in history, no task-queue trip) with the same result', async () => {
    h.fake.script(
      {
        toolCalls: [
          { name: 'exchange_rate', args: { from: 'EUR', to: 'USD' } },
          { name: 'calculator', args: { expression: '100 * 1.08' } },
        ],
      },
      { content: '108 USD' },
    );
    const { handle, result } = await h.run({ goal: 'Convert 100 EUR' }, { extraTools: [exchangeRate] });

    h.fake.assertDone();
    expect(result!.waves[0].calls.map((c) => [c.tool, c.ok, c.result])).toEqual([
      ['exchange_rate', true, '{"from":"EUR","to":"USD","rate":1.08}'],
      ['calculator', true, '108'],
    ]);
    const history = await handle.fetchHistory();
    expect(
      activities(history)
        .filter((a) => a.type === 'runTool')
        .map((a) => a.summary),
    ).toEqual(['wave 1 · calculator(expression=100 * 1.08)']);
    // Local activities are markers: resolveRun's in the first workflow task, then the tool's.
    const markers = history.events!.filter(
      (e) =>
        e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_MARKER_RECORDED &&
        e.markerRecordedEventAttributes?.markerName === 'core_local_activity',
    );
    expect(
      markers.map((e) => (e.userMetadata?.summary ? defaultPayloadConverter.fromPayload(e.userMetadata.summary) : '')),
    ).toEqual(['resolve agent and tools', 'wave 1 · exchange_rate(from=EUR, to=USD)']);
  });

  it('localModelCalls: model calls run as local activities; the history records their replies, never the transcript', async () => {
    const long = 'n'.repeat(3_000);
    h.fake.script(
      { content: long, toolCalls: [{ name: 'search_users', args: { name: 'Bob' } }] },
      { toolCalls: [{ name: 'calculator', args: { expression: '6 * 7' } }] },
      { content: 'Bob Martin; 42.' },
    );
    const { handle, result } = await h.run({ goal: 'Find Bob, then compute 6 * 7', localModelCalls: true });
    await recordHistory('local-model-calls', handle);

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Bob Martin; 42.', iterations: 3 });
    // The model saw the whole conversation every time, though nothing queried the workflow.
    expect(h.fake.requests[2].messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
    ]);
    expect(h.fake.requests[2].messages[2].content).toBe(long);
    const history = await handle.fetchHistory();
    // Tools are still activities of their own; the model calls are markers in workflow tasks.
    expect(activities(history).map((a) => a.summary)).toEqual([
      'wave 1 · search_users(name=Bob)',
      'wave 2 · calculator(expression=6 * 7)',
    ]);
    const markers = history.events!.filter(
      (e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity',
    );
    expect(markers.map((e) => defaultPayloadConverter.fromPayload(e.userMetadata!.summary!))).toEqual([
      'resolve agent and tools',
      'iteration 1 · model',
      'iteration 2 · model',
      'iteration 3 · model',
    ]);
    // The long first reply is recorded once (its result), not again in the inputs of later calls
    // (the run's result repeats it, in its wave's `said`).
    const recorded = payloadTexts(historyToJSON(withoutResult(history))).join('\n');
    expect(recorded.split(long).length - 1).toBe(1);
  });
});

describe('throughputTuning with localModelCalls', () => {
  it('throughputTuning(runs, { localModelCalls }): a workflow-task slot for every run and every open poll', () => {
    // A local model call keeps its run's workflow task, and its slot, open while the model answers,
    // and every open poll holds a slot too: with only `runs` slots the last runs waited for the first
    // ones' tasks to end (about 8 s, when the SDK heartbeats a task; scenario 4 of `npm run bench`).
    for (const runs of [1, 40, 100, 1_000]) {
      const tuning = throughputTuning(runs, { localModelCalls: true });
      expect(tuning.maxConcurrentWorkflowTaskExecutions).toBeGreaterThanOrEqual(
        runs + tuning.maxConcurrentWorkflowTaskPolls!,
      );
    }
  });

  it('throughputTuning(40, { localModelCalls }): 40 runs hold their model calls at once and all complete', async () => {
    const RUNS = 40;
    // Every reply waits until all the runs' model calls have arrived: a run the worker cannot take on
    // while the others hold their workflow tasks (a local model call keeps its task open) never
    // calls, and nothing ends.
    let arrived!: () => void;
    const allArrived = new Promise<void>((resolve) => (arrived = resolve));
    h.fake.route(
      async () => {
        if (h.fake.requests.length >= RUNS) arrived();
        await allArrived;
        return { content: 'done' };
      },
      { atMost: RUNS },
    );
    const { worker, taskQueue } = await h.worker({ tuning: throughputTuning(RUNS, { localModelCalls: true }) });
    const results = await worker.runUntil(async () => {
      const handles = await Promise.all(
        Array.from({ length: RUNS }, (_, i) =>
          h.client.workflow.start(AGENT_LOOP_WORKFLOW, {
            taskQueue,
            workflowId: `tuning-${i}-${Date.now()}`,
            args: [{ goal: `run ${i}`, localModelCalls: true }],
          }),
        ),
      );
      return Promise.all(handles.map((handle) => handle.result()));
    });

    expect(h.fake.requests).toHaveLength(RUNS);
    expect(results.map((r) => (r as { status: string; answer: string }).answer)).toEqual(Array(RUNS).fill('done'));
  });
});
