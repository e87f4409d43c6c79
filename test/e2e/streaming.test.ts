import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WaveloopClient } from '../../src/client/waveloop-client';
import type { StreamedText } from '../../src/contract/model/streaming';
import { Harness } from '../support/harness';
import { payloadTexts, recordHistory, withoutResult } from '../support/history';
import { eventually, gate } from '../support/wait';

const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

const THINKING = 'Looking up Bob in the directory before answering.';

describe('agentLoop: streamed replies', () => {
  it("the model's text reaches followers while it is generated; the history records the finished message once", async () => {
    const held = gate();
    h.fake.script(
      {
        content: THINKING,
        toolCalls: [{ name: 'search_users', args: { name: 'Bob' } }],
        stream: { hold: { after: 3, until: held.until } },
      },
      { content: 'Bob Martin works at Acme.' },
    );
    const seen: StreamedText[] = [];
    const { handle, result } = await h.run(
      { goal: 'Where does Bob work?' },
      {
        during: async (handle) => {
          const live = new WaveloopClient(h.client, 'unused');
          // Three pieces of the reply are out; the model is still generating the rest.
          seen.push(
            (await eventually(
              () => live.runs.modelCall(handle.workflowId).then((call) => call?.stream),
              (s) => s?.tail === 'Looking up Bob ',
            ))!,
          );
          expect(h.fake.inFlight).toBe(1);
          held.open();
          await eventually(
            () => live.runs.modelCall(handle.workflowId).then((call) => call?.stream),
            (s) => s === undefined || s.iteration > 1,
          );
        },
      },
    );

    await recordHistory('streamed-reply', handle);
    expect(seen[0]).toEqual({ iteration: 1, attempt: 1, length: 'Looking up Bob '.length, tail: 'Looking up Bob ' });
    expect(h.fake.requests[0].stream).toBe(true);
    // The streamed chunks were assembled into the same reply: the text and the tool call's arguments.
    expect(result).toMatchObject({ status: 'completed', answer: 'Bob Martin works at Acme.' });
    expect(result!.waves[0].calls[0]).toMatchObject({ tool: 'search_users', args: { name: 'Bob' }, ok: true });
    expect(result!.usage.totalTokens).toBe(220);
    // Partial text lives in heartbeats only: the history holds the reply once, as the activity's
    // result (and the run's result, in its wave's `said`).
    const payloads = payloadTexts(historyToJSON(withoutResult(await handle.fetchHistory()))).join('\n');
    expect(payloads.split('Looking up Bob').length - 1).toBe(1);
    expect(payloads).toContain(THINKING);
  });

  it("the model's thinking (reasoning_content) reaches followers apart from its text; only the text is the answer", async () => {
    const held = gate();
    const reasoning = 'Six times seven is forty-two.';
    h.fake.script({ reasoning, content: 'Forty-two.', stream: { hold: { after: 0, until: held.until } } });
    let seen: StreamedText | undefined;
    const { result } = await h.run(
      { goal: 'What is six times seven?' },
      {
        during: async (handle) => {
          // The thinking is out; the text has not started.
          seen = await eventually(
            () => new WaveloopClient(h.client, 'unused').runs.modelCall(handle.workflowId).then((call) => call?.stream),
            (s) => s?.thinking?.tail === reasoning,
          );
          held.open();
        },
      },
    );
    expect(seen).toEqual({
      iteration: 1,
      attempt: 1,
      length: 0,
      tail: '',
      thinking: { length: reasoning.length, tail: reasoning },
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'Forty-two.' });
  });

  it('an endpoint that answers a stream request with a whole completion is read as one', async () => {
    h.fake.script({ content: 'Forty-two.', stream: { whole: true } });
    const { result } = await h.run({ goal: 'What is six times seven?' });
    expect(h.fake.requests[0].stream).toBe(true);
    expect(result).toMatchObject({ status: 'completed', answer: 'Forty-two.' });
  });

  it('with streaming off (WAVELOOP_STREAM=false), whole replies are asked for and followers see none in flight', async () => {
    h.fake.script({ content: 'Forty-two.', delayMs: 1_500 });
    let inFlight: StreamedText | undefined | 'never looked';
    const { result } = await h.run(
      { goal: 'What is six times seven?' },
      {
        stream: false,
        during: async (handle) => {
          await eventually(
            () => h.fake.inFlight,
            (n) => n === 1,
          );
          inFlight = await new WaveloopClient(h.client, 'unused').runs
            .modelCall(handle.workflowId)
            .then((call) => call?.stream);
        },
      },
    );
    expect(h.fake.requests[0].stream).toBeUndefined();
    expect(inFlight).toBeUndefined();
    expect(result).toMatchObject({ status: 'completed', answer: 'Forty-two.' });
  });
});
