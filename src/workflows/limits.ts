import type { Usage } from '../common/contract';
import type { ModelPrice } from '../common/pricing';
import { costOf } from '../common/pricing';

/**
 * The limits that end a run gracefully (seed 002's constraints, seed 004's circuit breaker). Pure,
 * so the workflow can use them and tests can check them without a server.
 */

export interface Budget {
  maxTokens?: number;
  maxCostUsd?: number;
  price?: ModelPrice | null;
}

/**
 * Why the next model call would break the budget, or undefined. The next call is expected to cost
 * about what the last one did (its prompt only grows), so a run stops before it goes over, not after.
 */
export function budgetProblem(budget: Budget, used: Usage, lastCall: Usage | undefined): string | undefined {
  const next = lastCall ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  if (budget.maxTokens !== undefined && used.totalTokens + next.totalTokens > budget.maxTokens) {
    return `the token budget (${budget.maxTokens}) would be exceeded: ${used.totalTokens} used, the next call needs about ${next.totalTokens}`;
  }
  if (budget.maxCostUsd !== undefined) {
    const spent = costOf(used, budget.price);
    const nextCost = costOf(next, budget.price);
    if (spent + nextCost > budget.maxCostUsd) {
      return `the cost budget ($${budget.maxCostUsd}) would be exceeded: $${spent.toFixed(6)} spent, the next call costs about $${nextCost.toFixed(6)}`;
    }
  }
  return undefined;
}

/**
 * When the run should start wrapping up: shortly before its hard execution timeout, leaving 10% of
 * the timeout (at least 5 s, at most 2 min) for the final answer.
 */
export function softDeadline(expiration: Date | undefined, timeoutMs: number | undefined): number | undefined {
  if (!expiration || !timeoutMs) return undefined;
  const margin = Math.min(120_000, Math.max(5_000, timeoutMs * 0.1));
  return expiration.getTime() - margin;
}

/**
 * A note for the model as the iteration limit approaches (seed 004), or undefined while far away:
 * in the last 20% of the iterations, and always in the last two.
 */
export function iterationWarning(iteration: number, maxIterations: number): string | undefined {
  const left = maxIterations - iteration;
  if (left > Math.max(1, Math.floor(maxIterations * 0.2))) return undefined;
  if (left === 0) return `This is iteration ${iteration} of ${maxIterations}, the last one: give your final answer now.`;
  return `Iteration ${iteration} of ${maxIterations}: ${left} iteration${left === 1 ? '' : 's'} left. Wrap up soon.`;
}

/**
 * Seed 004's circuit breaker: the same tool failing with the same error `threshold` times in a row
 * opens it; a success of that tool resets its count. A threshold of 0 turns it off.
 */
export class CircuitBreaker {
  private readonly streaks = new Map<string, { error: string; count: number }>();

  constructor(private readonly threshold: number) {}

  /** Records a call's outcome; returns the error that opened the circuit, if it just opened. */
  record(tool: string, ok: boolean, error?: string): string | undefined {
    if (ok) {
      this.streaks.delete(tool);
      return undefined;
    }
    const streak = this.streaks.get(tool);
    const next = streak && streak.error === error ? { error: error ?? '', count: streak.count + 1 } : { error: error ?? '', count: 1 };
    this.streaks.set(tool, next);
    return this.threshold > 0 && next.count >= this.threshold ? `${tool} failed ${next.count} times in a row: ${next.error}` : undefined;
  }
}
