import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answerUpdate } from '../../src/contract/messages';
import { defineTool } from '../../src/tools/define';
import type { ChatRequest, ScriptedReply } from '../support/fake-model';
import { Harness, waitForProgress } from '../support/harness';
import { recordHistory } from '../support/history';

const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

const EventType = temporal.api.enums.v1.EventType;

/**
 * A read whose calls are activities (`localActivity: false`): an iteration of it adds as many
 * events as one of any tool run as an activity, so the hand-overs come where these tests expect.
 */
const addOne = defineTool({
  name: 'add_one',
  description: 'Adds one to a number.',
  parameters: z.object({ n: z.number() }),
  effect: 'read',
  localActivity: false,
  execute: ({ n }) => String(n + 1),
});

describe('agentLoop: long runs stay bounded', () => {
  it('continue-as-new: a long run hands over at least twice, compacts its transcript, and still answers a question', async () => {
    const agent: Array<ScriptedReply | ((req: ChatRequest) => ScriptedReply)> = [
      ...Array.from({ length: 10 }, (_, i) => ({
        content: `step ${i}`,
        toolCalls: [{ name: 'add_one', args: { n: i } }],
      })),
      { toolCalls: [{ name: 'ask_question', args: { question: 'Shall I add them up?' } }] },
      (req) => ({ content: `Sum: 55 (you said ${req.messages.at(-1)!.content}).` }),
    ];
    const summaries: ChatRequest[] = [];
    const route = (req: ChatRequest): ScriptedReply => {
      if (String(req.messages[0].content).startsWith('You compress')) {
        summaries.push(req);
        return { content: `Earlier: computed ${summaries.length} batch(es) of sums.` };
      }
      const next = agent.shift();
      if (!next) throw new Error('unexpected agent call');
      return typeof next === 'function' ? next(req) : next;
    };
    // How many summaries happen depends on the hand-over points: 12 turns, and a summary at each hand-over.
    h.fake.route(route, { atMost: 30 });

    let handOversWhenAsked = 0;
    const { handle, result } = await h.run(
      { goal: 'Add 1 to 0..9, then ask me', maxHistoryEvents: 50, maxIterations: 20 },
      {
        extraTools: [addOne],
        during: async (handle) => {
          const waiting = await waitForProgress(h.client, handle, (p) => p.status === 'waiting_for_input');
          handOversWhenAsked = waiting.handOvers ?? 0;
          await handle.executeUpdate(answerUpdate, { args: ['yes please'] });
        },
      },
    );

    await recordHistory('hand-over', handle);

    expect(agent).toHaveLength(0);
    expect(result).toMatchObject({ status: 'completed', answer: 'Sum: 55 (you said yes please).', iterations: 12 });
    expect(result!.waves).toHaveLength(11);
    expect(result!.waves.slice(0, 10).map((w) => w.calls[0].result)).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
      '10',
    ]);
    expect(handOversWhenAsked).toBeGreaterThanOrEqual(2);

    // The first run ended by continuing as new, with a small history.
    const first = await h.client.workflow
      .getHandle(handle.workflowId, (handle as any).firstExecutionRunId)
      .fetchHistory();
    expect(first.events!.at(-1)!.eventType).toBe(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);
    expect(first.events!.length).toBeLessThan(80);

    // Older turns were summarised and the model saw the summary instead of them.
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    const later = h.fake.requests.filter((r) => !String(r.messages[0].content).startsWith('You compress')).at(-1)!;
    expect(later.messages[2].content).toMatch(
      /^Summary of the earlier part of this run \(\d+ messages\):\nEarlier: computed/,
    );
    expect(later.messages.length).toBeLessThan(2 + 12 * 2);
  });

  it(
    'a 250-iteration run completes with the default limits: it hands over, and no single run of it nears the history warning thresholds (10,240 events / 10 MB)',
    { timeout: 600_000 },
    async () => {
      let turns = 0;
      h.fake.route(
        (req) => {
          if (String(req.messages[0].content).startsWith('You compress'))
            return { content: `Earlier: ${turns} sums so far.` };
          turns += 1;
          return turns < 250
            ? { toolCalls: [{ name: 'add_one', args: { n: turns } }] }
            : { content: 'Done: 249 sums.' };
          // 250 turns, and a summary at each hand-over (one every 2,000 events, about 200 iterations).
        },
        { atMost: 255 },
      );
      const { handle, result } = await h.run(
        { goal: 'Add one to every number from 1 to 249', maxIterations: 250 },
        { timeout: '10 minutes', extraTools: [addOne] },
      );

      expect(result).toMatchObject({ status: 'completed', iterations: 250, answer: 'Done: 249 sums.' });
      // Walk the chain of runs from the first (continue-as-new links each to the next) with the default limits.
      const sizes: Array<{ events: number; bytes: number }> = [];
      let runId: string | undefined = (handle as any).firstExecutionRunId;
      while (runId) {
        const history = await h.client.workflow.getHandle(handle.workflowId, runId).fetchHistory();
        sizes.push({
          events: history.events!.length,
          bytes: temporal.api.history.v1.History.encode(history).finish().length,
        });
        runId = history.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
      }
      // A run hands over at 2,000 events by default (about 200 iterations of one tool call).
      expect(sizes.length).toBeGreaterThanOrEqual(2);
      for (const size of sizes) {
        expect(size.events).toBeLessThan(10_240 / 2);
        expect(size.bytes).toBeLessThan(5 * 1024 * 1024);
      }
    },
  );
});
