import { describe, expect, it } from 'vitest';
import type { ResolvedRun } from '../../src/contract/activity-io';
import { startingState, type Continuation } from '../../src/workflows/continuation';

/**
 * Every field of a run's state, each set to a value of its own: a field added to `Continuation`
 * makes this sample a type error until it is given one here, and a field `startingState` does not
 * hand back fails the round trip.
 */
const carried: { [K in keyof Continuation]-?: Exclude<Continuation[K], undefined> } = {
  run: { agent: 'clerk' } as ResolvedRun,
  messages: [{ role: 'user', content: 'goal' }],
  waves: [{ iteration: 3, calls: [] }],
  usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 },
  iteration: 7,
  turnStart: 4,
  lastText: 'so far',
  lastCall: { promptTokens: 5, completionTokens: 1, totalTokens: 6 },
  handOvers: 2,
  startedAtMs: 1_700_000_000_000,
  outputRepairs: 1,
  forkedFrom: { workflowId: 'source', runId: 'r1', iteration: 2 },
  handoffs: [{ from: 'triage', to: 'clerk', iteration: 5, callId: 'call_5' }],
};

describe('continuation: the state a run hands over is the state the next run starts from', () => {
  it('startingState gives back every field carried (the transcript and the resolved run travel apart)', () => {
    const { run: _run, messages: _messages, ...state } = carried;
    const started = startingState(carried, { startedAtMs: 0 });
    expect(started).toEqual({ ...state, handedOver: true });
    // Through JSON, as Temporal's payloads carry it.
    expect(startingState(JSON.parse(JSON.stringify(carried)) as Continuation, { startedAtMs: 0 })).toEqual(started);
  });

  it("a first run starts at zero, now, at a fork's iteration when forked", () => {
    expect(startingState(undefined, { startedAtMs: 42 })).toMatchObject({
      iteration: 0,
      handOvers: 0,
      startedAtMs: 42,
      outputRepairs: 0,
      forkedFrom: undefined,
      handedOver: false,
    });
    const forked = { workflowId: 'src', runId: 'r', iteration: 3, messages: [], goal: 'g' };
    expect(startingState(undefined, { startedAtMs: 42, forked })).toMatchObject({
      iteration: 3,
      forkedFrom: { workflowId: 'src', runId: 'r', iteration: 3 },
    });
  });
});
