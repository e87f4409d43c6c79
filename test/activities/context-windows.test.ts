import { describe, expect, it } from 'vitest';
import { contextWindowOf } from '../../src/activities/context-windows';
import { clipped } from '../../src/activities/summarize';

describe('memory pruning helpers', () => {
  it('contextWindowOf: exact names, dated versions by prefix (the longest), unknown models undefined', () => {
    expect(contextWindowOf('gpt-4o')).toBe(128_000);
    expect(contextWindowOf('gpt-4.1-mini-2025-04-14')).toBe(1_047_576);
    expect(contextWindowOf('gpt-5-nano-2025-08-07')).toBe(400_000);
    expect(contextWindowOf('llama3.1')).toBeUndefined();
  });

  it('clipped: lines that together exceed the budget each keep an equal share of it, and say how much went', () => {
    const lines = ['short', 'x'.repeat(1_000), 'y'.repeat(600)];
    expect(clipped(lines, undefined)).toBe(lines);
    expect(clipped(lines, 10_000)).toBe(lines);
    const out = clipped(lines, 900);
    expect(out[0]).toBe('short');
    expect(out[1]).toBe(`${'x'.repeat(300)}… (700 characters clipped)`);
    expect(out[2]).toBe(`${'y'.repeat(300)}… (300 characters clipped)`);
    // Never less than 200 characters a line, however many lines share the budget.
    expect(
      clipped(
        Array.from({ length: 10 }, () => 'z'.repeat(500)),
        100,
      )[0],
    ).toMatch(/^z{200}… \(300 characters clipped\)$/);
  });
});
