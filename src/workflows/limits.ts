import type { ToolCallRecord, Usage } from '../common/contract';
import type { ModelPrice } from '../common/pricing';
import { costOf } from '../common/pricing';

/**
 * The limits that end a run gracefully: iterations, token and cost budgets, the time limit, and the
 * circuit breaker. Pure (the deadline's timer is handed in), so tests check them without a server.
 */

/** Why a run stops before its next model call. Budgets and the deadline leave the model one last call to answer. */
export type Stop = { status: 'max_iterations' } | { status: 'budget_exhausted' | 'deadline'; reason: string };

/** How a denied call's result starts, as the model sees it. A denial is a person's decision, not a failure. */
export const DENIED = 'denied:';

export interface RunLimitSettings {
  maxIterations: number;
  budget: Budget;
  circuitBreaker: number;
}

/**
 * A run's limits, one answer each: whether the run must stop before its next model call (`check`),
 * what the model is told as the iteration limit nears (`warning`), and whether a wave or an unusable
 * reply opened the circuit breaker. In a conversation every turn (each message from the person)
 * gets the full iteration limit.
 */
export class RunLimits {
  private readonly breaker: CircuitBreaker;

  constructor(
    private readonly settings: RunLimitSettings,
    /** True once the run's time limit is close (a durable timer, so a replay sees it at the same point). */
    private readonly pastDeadline: () => boolean,
    /** The iteration the current turn started after. */
    public turnStart = 0,
  ) {
    this.breaker = new CircuitBreaker(settings.circuitBreaker);
  }

  /** Why the run must stop before iteration `iteration + 1`, given what it used and what its latest call used. */
  check(iteration: number, used: Usage, lastCall: Usage | undefined): Stop | undefined {
    if (iteration - this.turnStart >= this.settings.maxIterations) return { status: 'max_iterations' };
    const overBudget = budgetProblem(this.settings.budget, used, lastCall);
    if (overBudget) return { status: 'budget_exhausted', reason: overBudget };
    if (this.pastDeadline()) return { status: 'deadline', reason: 'the time limit of this run is close' };
    return undefined;
  }

  /** The note for the model at `iteration`, as the turn's iteration limit nears. */
  warning(iteration: number): string | undefined {
    return iterationWarning(iteration - this.turnStart, this.settings.maxIterations);
  }

  /** A new turn of a conversation starts after `iteration`. */
  newTurn(iteration: number): void {
    this.turnStart = iteration;
  }

  /** Counts a wave's failures (denials are not failures); the reason the circuit opened, if it did. */
  afterWave(calls: readonly ToolCallRecord[]): string | undefined {
    for (const call of calls) {
      if (call.error?.startsWith(DENIED)) continue;
      const opened = this.breaker.record(call.tool, call.ok, call.error);
      if (opened) return `Circuit open: ${opened}`;
    }
    return undefined;
  }

  /** Counts a reply the planner could not use as a failure of its own; the reason the circuit opened, if it did. */
  afterUnusableReply(feedback: string): string | undefined {
    const opened = this.breaker.record('(planner)', false, feedback);
    return opened && `Circuit open: ${opened}`;
  }
}

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
 * The run's deadline (epoch ms), if it has one: the earlier of the soft deadline before its
 * execution timeout and its own time limit (`timeoutMs`), counted from when its chain started.
 */
export function runDeadline(
  execution: { expiration: Date | undefined; timeoutMs: number | undefined },
  limit: { timeoutMs: number | undefined; startedAtMs: number },
): number | undefined {
  const times = [softDeadline(execution.expiration, execution.timeoutMs), limit.timeoutMs === undefined ? undefined : limit.startedAtMs + limit.timeoutMs];
  const known = times.filter((time): time is number => time !== undefined);
  return known.length ? Math.min(...known) : undefined;
}

/**
 * A note for the model as the iteration limit approaches, or undefined while far away:
 * in the last 20% of the iterations, and always in the last two.
 */
export function iterationWarning(iteration: number, maxIterations: number): string | undefined {
  const left = maxIterations - iteration;
  if (left > Math.max(1, Math.floor(maxIterations * 0.2))) return undefined;
  if (left === 0) return `This is iteration ${iteration} of ${maxIterations}, the last one: give your final answer now.`;
  return `Iteration ${iteration} of ${maxIterations}: ${left} iteration${left === 1 ? '' : 's'} left. Wrap up soon.`;
}

/**
 * The circuit breaker: the same tool failing with the same error `threshold` times in a row
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
