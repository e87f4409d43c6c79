import { describe, expect, it } from 'vitest';
import { costOf, priceOf } from '../../../src/contract/model/pricing';

describe('pricing', () => {
  it('priceOf: exact names, dated versions by prefix, overrides first, unknown models undefined', () => {
    expect(priceOf('gpt-4o')).toEqual({ inputPerMTok: 2.5, outputPerMTok: 10 });
    expect(priceOf('gpt-4o-mini-2024-07-18')).toEqual({ inputPerMTok: 0.15, outputPerMTok: 0.6 });
    expect(priceOf('gpt-4o', { 'gpt-4o': { inputPerMTok: 1, outputPerMTok: 2 } })).toEqual({
      inputPerMTok: 1,
      outputPerMTok: 2,
    });
    expect(priceOf('llama3.1')).toBeUndefined();
    expect(priceOf('llama3.1', { llama: { inputPerMTok: 0, outputPerMTok: 0 } })).toEqual({
      inputPerMTok: 0,
      outputPerMTok: 0,
    });
  });

  it('costOf: USD for prompt and completion tokens; 0 without a price', () => {
    const usage = { promptTokens: 1_000_000, completionTokens: 500_000, totalTokens: 1_500_000 };
    expect(costOf(usage, { inputPerMTok: 0.15, outputPerMTok: 0.6 })).toBeCloseTo(0.45);
    expect(costOf(usage, null)).toBe(0);
  });
});
