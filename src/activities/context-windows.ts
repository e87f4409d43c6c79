import { modelEntry } from '../contract/model/pricing';

/**
 * How many tokens a model's context window holds, for memory pruning: past a share of it
 * the loop summarises the older part of the transcript. Pure; the worker resolves a run's window once
 * (`resolveRun`), from the run's or its agent's `maxContextTokens`, else this table.
 */
export const DEFAULT_CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  'gpt-4o-mini': 128_000,
  'gpt-4o': 128_000,
  'gpt-4.1-nano': 1_047_576,
  'gpt-4.1-mini': 1_047_576,
  'gpt-4.1': 1_047_576,
  'gpt-5-nano': 400_000,
  'gpt-5-mini': 400_000,
  'gpt-5': 400_000,
  'o4-mini': 200_000,
  o3: 200_000,
};

/**
 * The context window of `model`: an exact entry, else the longest entry the name starts with (so
 * `gpt-4o-mini-2024-07-18` has `gpt-4o-mini`'s). Undefined when unknown: the transcript is then
 * compacted only when the endpoint says it no longer fits (`ModelContextExceeded`).
 */
export function contextWindowOf(model: string): number | undefined {
  return modelEntry(DEFAULT_CONTEXT_WINDOWS, model);
}
