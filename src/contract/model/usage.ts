/**
 * Token usage and its arithmetic. Free of zod on purpose: workflow code imports it, and every
 * workflow evaluates the modules it imports anew (src/workflows/lazy.ts).
 */

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /**
   * Set when some of these tokens were estimated rather than reported: an endpoint that sends no
   * usage is counted at about 4 characters a token, so token and cost budgets still hold.
   */
  estimated?: true;
}

export const ZERO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/** The sum of two usages; estimated when either is. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    ...(a.estimated || b.estimated ? { estimated: true as const } : {}),
  };
}

/**
 * What a failed run had used, carried in its failure's details (`{ usage }`), so that whoever
 * started it (a goal tree's parent) can count the tokens spent before it failed.
 */
export function usageReport(usage: Usage): { usage: Usage } {
  return { usage };
}

/** The usage a failure's details report (`usageReport`), if any. */
export function reportedUsage(details: readonly unknown[] | undefined): Usage | undefined {
  for (const detail of details ?? []) {
    const usage = (detail as { usage?: Partial<Usage> } | null)?.usage;
    if (
      usage &&
      [usage.promptTokens, usage.completionTokens, usage.totalTokens].every(
        (n) => typeof n === 'number' && Number.isFinite(n),
      )
    ) {
      return usage as Usage;
    }
  }
  return undefined;
}
