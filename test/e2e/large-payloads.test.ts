import { randomBytes } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TOOL_RESULT_MAX_CHARS } from '../../src/contract/activity-options';
import { CLAIM_CHECK_MIN_BYTES } from '../../src/payloads/claim-check';
import { defineTool } from '../../src/tools/define';
import { toolMessages, type ChatRequest } from '../support/fake-model';
import { Harness } from '../support/harness';
import { historyPayloads } from '../support/history';

const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

const FIVE_MB = 5 * 1024 * 1024;
const bigExport = defineTool({
  name: 'big_export',
  description: 'Exports everything (5 MB).',
  parameters: z.object({}),
  execute: () => 'x'.repeat(FIVE_MB - 8) + 'THE END.',
});
const noise = defineTool({
  name: 'noise_chunk',
  description: 'Returns 60 KB of random text.',
  parameters: z.object({ n: z.number() }),
  execute: () => randomBytes(45 * 1024).toString('base64'),
});
const twoKb = defineTool({
  name: 'two_kb',
  description: 'Returns 2 KB of text.',
  parameters: z.object({ n: z.number() }),
  execute: ({ n }) => `${n}:`.padEnd(2048, 'z'),
});

/** The largest payload anywhere in a run's history, in bytes. */
function largestPayload(history: temporal.api.history.v1.IHistory): number {
  return Math.max(0, ...historyPayloads(history).map((payload) => payload.data.length));
}

describe('large payloads', () => {
  it('a 5 MB tool result: the model sees a truncated view with a note, the full result is kept, the run completes', async () => {
    h.fake.script({ toolCalls: [{ name: 'big_export', args: {} }] }, (request: ChatRequest) => {
      const [seen] = toolMessages(request);
      expect(seen.length).toBeLessThan(TOOL_RESULT_MAX_CHARS + 500);
      expect(seen).toMatch(
        /\[Truncated: the tool returned 5242880 characters; only the first 65536 are shown\. The full result is stored under payload key [a-f0-9]{64}\./,
      );
      return { content: 'Exported.' };
    });
    const { handle, result } = await h.run({ goal: 'Export everything' }, { extraTools: [bigExport] });
    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Exported.' });
    const key = /payload key ([a-f0-9]{64})/.exec(result!.waves[0].calls[0].result!)![1];
    const full = Buffer.from(h.blobStore.get(key)).toString();
    expect(full).toHaveLength(FIVE_MB);
    expect(full.endsWith('THE END.')).toBe(true);
    expect(largestPayload(await handle.fetchHistory())).toBeLessThanOrEqual(CLAIM_CHECK_MIN_BYTES);
  });

  it('a transcript past 2 MB: the transcript query and the result go through the claim check, the run completes', async () => {
    const calls = Array.from({ length: 40 }, (_, n) => ({ name: 'noise_chunk', args: { n } }));
    h.fake.script({ toolCalls: calls }, (request) => {
      expect(toolMessages(request).join('').length).toBeGreaterThan(2 * 1024 * 1024);
      return { content: 'Read it all.' };
    });
    const { handle, result, transcript } = await h.run(
      { goal: 'Read lots of noise', maxIterations: 3 },
      { extraTools: [noise] },
    );
    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Read it all.' });
    expect(JSON.stringify(transcript).length).toBeGreaterThan(2 * 1024 * 1024);
    expect(largestPayload(await handle.fetchHistory())).toBeLessThanOrEqual(CLAIM_CHECK_MIN_BYTES);
  });

  it('history growth: iteration 50 adds about as many history bytes as iteration 20 (2 KB tool outputs)', async () => {
    // A transcript sent again with every call would make iteration 50's bytes 2.5 times iteration 20's.
    const ITERATIONS = 50;
    h.fake.route(
      (request) => {
        const turn = request.messages.filter((m) => m.role === 'assistant').length + 1;
        return turn <= ITERATIONS
          ? { toolCalls: [{ id: `call_${turn}`, name: 'two_kb', args: { n: turn } }] }
          : { content: 'Done.' };
      },
      { atMost: ITERATIONS + 1 },
    );
    const { handle, result } = await h.run(
      { goal: 'Grow the history', maxIterations: ITERATIONS + 1, maxHistoryEvents: 50_000, circuitBreaker: 0 },
      { extraTools: [twoKb], timeout: '10 minutes' },
    );
    expect(result).toMatchObject({ status: 'completed', iterations: ITERATIONS + 1 });

    // Bytes of history from one model call to the next, per iteration.
    const events = (await handle.fetchHistory()).events ?? [];
    const perIteration: number[] = [];
    for (const event of events) {
      const isModelCall = event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel';
      if (isModelCall) perIteration.push(0);
      if (perIteration.length > 0)
        perIteration[perIteration.length - 1] += temporal.api.history.v1.HistoryEvent.encode(event).finish().length;
    }
    const mean = (from: number, to: number) =>
      perIteration.slice(from - 1, to).reduce((a, b) => a + b, 0) / (to - from + 1);
    const early = mean(11, 20);
    const late = mean(41, 50);
    console.log(
      `history growth: ${Math.round(early)} bytes per iteration at 11-20, ${Math.round(late)} at 41-50 (total ${events.length} events)`,
    );
    expect(late / early).toBeLessThan(1.1);
  }, 300_000);
});
