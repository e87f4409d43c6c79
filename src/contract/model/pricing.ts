import type { Usage } from '../agent-loop';

/**
 * What a model's tokens cost, in USD per million tokens. Pure: the worker resolves the price of a
 * run's or a goal tree's model once (its table can be overridden through `createWorker({ modelPrices })`)
 * and the workflow turns token usage into cost with `costOf`.
 */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
}

/** List prices of common models (USD per 1M tokens). Unknown models cost 0: set a price to limit cost. */
export const DEFAULT_MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6 },
  'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 },
  'gpt-4.1-nano': { inputPerMTok: 0.1, outputPerMTok: 0.4 },
  'gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 },
  'gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8 },
  'gpt-5-nano': { inputPerMTok: 0.05, outputPerMTok: 0.4 },
  'gpt-5-mini': { inputPerMTok: 0.25, outputPerMTok: 2 },
  'gpt-5': { inputPerMTok: 1.25, outputPerMTok: 10 },
  'o4-mini': { inputPerMTok: 1.1, outputPerMTok: 4.4 },
};

/**
 * The price of `model`: an exact entry of `overrides`, then of the defaults, then the longest entry
 * the name starts with (so `gpt-4o-mini-2024-07-18` is priced as `gpt-4o-mini`). Undefined when unknown.
 */
export function priceOf(model: string, overrides: Readonly<Record<string, ModelPrice>> = {}): ModelPrice | undefined {
  return modelEntry({ ...DEFAULT_MODEL_PRICES, ...overrides }, model);
}

/** The entry of a per-model table for `model`: its own, else the longest name it starts with. */
export function modelEntry<T>(table: Readonly<Record<string, T>>, model: string): T | undefined {
  if (Object.hasOwn(table, model)) return table[model];
  const prefix = Object.keys(table)
    .filter((name) => model.startsWith(name))
    .sort((a, b) => b.length - a.length)[0];
  return prefix ? table[prefix] : undefined;
}

/** USD spent for `usage` at `price` (0 when the price is unknown). */
export function costOf(usage: Usage, price: ModelPrice | null | undefined): number {
  if (!price) return 0;
  return (usage.promptTokens * price.inputPerMTok + usage.completionTokens * price.outputPerMTok) / 1_000_000;
}
