import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AGENT_LOOP_WORKFLOW } from '../../src/contract/agent-loop';
import { defineTool } from '../../src/tools/define';
import { throughputTuning } from '../../src/worker';
import { Harness } from '../support/harness';
import { activities, localActivities, payloadTexts, recordHistory, withoutResult } from '../support/history';

const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

const exchangeRate = defineTool({
  name: 'exchange_rate',
  description: 'The exchange rate between two currencies (a cheap lookup, declared a local activity).',
  parameters: z.object({ from: z.string(), to: z.string() }),
  localActivity: true,
  execute: ({ from, to }) => ({ from, to, rate: from === 'EUR' && to === 'USD' ? 1.08 : 1 }),
});

const rateHistory = defineTool({
  name: 'rate_history',
  description: 'Past exchange rates (a read that may be slow, so its calls are activities).',
  parameters: z.object({ from: z.string() }),
  effect: 'read',
  localActivity: false,
  execute: ({ from }) => `${from}: 1.07, 1.08`,
});

describe('agentLoop: local-activity tools', () => {
  it('a read tool runs as a local activity by default (a marker in history, no task-queue trip), as does one declared localActivity; localActivity: false keeps a read an activity', async () => {
    h.fake.script(
      {
        toolCalls: [
          { name: 'exchange_rate', args: { from: 'EUR', to: 'USD' } },
          { name: 'calculator', args: { expression: '100 * 1.08' } },
          { name: 'rate_history', args: { from: 'EUR' } },
        ],
      },
      { content: '108 USD' },
    );
    const { handle, result } = await h.run({ goal: 'Convert 100 EUR' }, { extraTools: [exchangeRate, rateHistory] });

    h.fake.assertDone();
    expect(result!.waves[0].calls.map((c) => [c.tool, c.ok, c.result])).toEqual([
      ['exchange_rate', true, '{"from":"EUR","to":"USD","rate":1.08}'],
      ['calculator', true, '108'],
      ['rate_history', true, 'EUR: 1.07, 1.08'],
    ]);
    const history = await handle.fetchHistory();
    expect(
      activities(history)
        .filter((a) => a.type === 'runTool')
        .map((a) => a.summary),
    ).toEqual(['wave 1 · rate_history(from=EUR)']);
    // Local activities are markers: resolveRun's in the first workflow task, then the wave's two,
    // both in the workflow task that received the model's reply.
    const [resolve, ...tools] = localActivities(history);
    expect(resolve.summary).toBe('resolve agent and tools');
    expect(tools.map((a) => a.summary).sort()).toEqual([
      'wave 1 · calculator(expression=100 * 1.08)',
      'wave 1 · exchange_rate(from=EUR, to=USD)',
    ]);
    expect(new Set(tools.map((a) => a.workflowTask)).size).toBe(1);
  });

  it("a read tool's calls of one wave run side by side: each waits until both have begun", async () => {
    let begun = 0;
    let bothBegun!: () => void;
    const both = new Promise<void>((resolve) => (bothBegun = resolve));
    const rendezvous = defineTool({
      name: 'rendezvous',
      description: 'Answers "met" once the other call of its wave has begun too.',
      parameters: z.object({ who: z.string() }),
      effect: 'read',
      async execute({ who }) {
        if (++begun === 2) bothBegun();
        let timer: NodeJS.Timeout | undefined;
        // A guard, not a measure: calls run one after the other would wait here for ever.
        const alone = new Promise<string>((resolve) => (timer = setTimeout(() => resolve(`${who} alone`), 20_000)));
        const met = await Promise.race([both.then(() => `${who} met`), alone]);
        clearTimeout(timer);
        return met;
      },
    });
    h.fake.script(
      {
        toolCalls: [
          { name: 'rendezvous', args: { who: 'a' } },
          { name: 'rendezvous', args: { who: 'b' } },
        ],
      },
      { content: 'Both met.' },
    );
    const { handle, result } = await h.run({ goal: 'Meet twice' }, { extraTools: [rendezvous] });

    h.fake.assertDone();
    expect(result!.waves[0].calls.map((c) => c.result)).toEqual(['a met', 'b met']);
    expect(localActivities(await handle.fetchHistory()).filter((a) => a.type === 'runTool')).toHaveLength(2);
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
    // The model calls and the read tools' calls are all markers in workflow tasks: no activity.
    expect(activities(history)).toEqual([]);
    expect(localActivities(history).map((a) => a.summary)).toEqual([
      'resolve agent and tools',
      'iteration 1 · model',
      'wave 1 · search_users(name=Bob)',
      'iteration 2 · model',
      'wave 2 · calculator(expression=6 * 7)',
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
