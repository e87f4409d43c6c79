import { describe, expect, it } from 'vitest';
import { durationMs, RateLimitGate } from '../../../src/activities/model/rate-limit-gate';

function clock(start = 1_000_000) {
  const c = { now: start, tick: (ms: number) => (c.now += ms) };
  return c;
}

describe('RateLimitGate', () => {
  it('a 429 shuts the gate for every call until its retry-after has passed', () => {
    const c = clock();
    const gate = new RateLimitGate({ now: () => c.now });
    expect(gate.heldUntil(10)).toBe(0);
    gate.observe(429, new Headers({ 'retry-after': '3' }));
    expect(gate.heldUntil(10)).toBe(c.now + 3_000);
    c.tick(3_000);
    expect(gate.heldUntil(10)).toBe(0);
  });

  it('remaining tokens below a call holds it until the reset; each call let through takes its estimate off', async () => {
    const c = clock();
    const gate = new RateLimitGate({ now: () => c.now });
    gate.observe(200, new Headers({ 'x-ratelimit-remaining-tokens': '150', 'x-ratelimit-reset-tokens': '6m0s' }));
    expect(gate.heldUntil(100)).toBe(0);
    await gate.pass(100, () => undefined);
    // 50 remain: the next call of 100 waits for the reset, one of 40 still goes.
    expect(gate.heldUntil(100)).toBe(c.now + 360_000);
    expect(gate.heldUntil(40)).toBe(0);
  });

  it('no requests remaining shuts the gate until the requests reset', () => {
    const c = clock();
    const gate = new RateLimitGate({ now: () => c.now });
    gate.observe(200, new Headers({ 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1.5s' }));
    expect(gate.heldUntil(1)).toBe(c.now + 1_500);
  });

  it('tokensPerMinute: a call that would pass the minute waits until enough tokens left it', async () => {
    const c = clock();
    const gate = new RateLimitGate({ tokensPerMinute: 1_000, now: () => c.now });
    await gate.pass(600, () => undefined);
    const first = c.now;
    c.tick(10_000);
    await gate.pass(300, () => undefined);
    expect(gate.heldUntil(200)).toBe(first + 60_000);
    expect(gate.heldUntil(100)).toBe(0);
    // A reply that used fewer tokens than estimated gives the difference back.
    gate.used(300, 100);
    expect(gate.heldUntil(200)).toBe(0);
  });

  it('pass: says until when it is held, and goes once the gate opens', async () => {
    const gate = new RateLimitGate();
    gate.observe(429, new Headers({ 'retry-after-ms': '30' }));
    const held: number[] = [];
    await gate.pass(1, (until) => held.push(until));
    expect(held.length).toBeGreaterThan(0);
    expect(gate.heldUntil(1)).toBe(0);
  });

  it('durationMs: reads OpenAI reset durations', () => {
    expect(durationMs('6m0s')).toBe(360_000);
    expect(durationMs('1.5s')).toBe(1_500);
    expect(durationMs('20ms')).toBe(20);
    expect(durationMs('2')).toBe(2_000);
    expect(durationMs('soon')).toBeUndefined();
  });
});
