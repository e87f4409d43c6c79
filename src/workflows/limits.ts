import type { ToolCallRecord, Usage } from '../contract/agent-loop';
import type { ModelPrice } from '../contract/model/pricing';
import { costOf } from '../contract/model/pricing';
import type { RunSettings } from '../contract/settings/resolve';
import { textHash } from '../contract/text-hash';

/**
 * The limits that end a run gracefully: iterations, token and cost budgets, the time limit, and the
 * circuit breaker. Pure (the deadline's timer is handed in), so tests check them without a server.
 */

/** Why a run stops before its next model call. Budgets and the deadline leave the model one last call to answer. */
export type Stop = { status: 'max_iterations' } | { status: 'budget_exhausted' | 'deadline'; reason: string };

/** How a denied call's result starts, as the model sees it. A denial is a person's decision, not a failure. */
export const DENIED = 'denied:';

/** The run's settings its limits read, and its model's price. */
export type RunLimitSettings = Pick<RunSettings, 'maxIterations' | 'circuitBreaker' | 'maxTokens' | 'maxCostUsd'> & {
  price: ModelPrice | null;
};

/** What a wave did to the circuit breaker: opened it (the run ends), or left a note for the model. */
export type WaveVerdict = { opened: string } | { note: string } | undefined;

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
    const overBudget = budgetProblem(this.settings, used, lastCall);
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

  /**
   * Counts a wave's calls (a denial by a person counts for nothing): the reason the circuit opened,
   * if it did, else the note the model gets when it repeats a call.
   */
  afterWave(calls: readonly ToolCallRecord[]): WaveVerdict {
    const notes: string[] = [];
    const seen = new Set<string>();
    for (const call of calls) {
      if (call.error?.startsWith(DENIED)) continue;
      // The same call twice in one wave is one repetition: the model asked for both at once.
      const same = call.ok && JSON.stringify([call.tool, call.args, call.result]);
      if (same && seen.has(same)) continue;
      if (same) seen.add(same);
      const verdict = this.breaker.record(
        call.tool,
        call.ok ? { args: call.args, result: call.result ?? '' } : { error: call.error ?? '' },
      );
      if (verdict && 'opened' in verdict) return { opened: `Circuit open: ${verdict.opened}` };
      if (verdict) notes.push(verdict.note);
    }
    return notes.length ? { note: notes.join('\n') } : undefined;
  }

  /** Counts a reply the planner could not use as a failure of its own; the reason the circuit opened, if it did. */
  afterUnusableReply(feedback: string): string | undefined {
    const verdict = this.breaker.record('(planner)', { error: feedback });
    return verdict && 'opened' in verdict ? `Circuit open: ${verdict.opened}` : undefined;
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
 * execution timeout and its own time limit (`timeoutSeconds`), counted from when its chain started.
 */
export function runDeadline(
  execution: { expiration: Date | undefined; timeoutMs: number | undefined },
  limit: { timeoutSeconds: number | undefined; startedAtMs: number },
): number | undefined {
  const times = [
    softDeadline(execution.expiration, execution.timeoutMs),
    limit.timeoutSeconds === undefined ? undefined : limit.startedAtMs + limit.timeoutSeconds * 1000,
  ];
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
  if (left === 0)
    return `This is iteration ${iteration} of ${maxIterations}, the last one: give your final answer now.`;
  return `Iteration ${iteration} of ${maxIterations}: ${left} iteration${left === 1 ? '' : 's'} left. Wrap up soon.`;
}

/**
 * The circuit breaker, over each tool's latest outcomes in a row:
 * - the same error `threshold` times in a row opens it;
 * - the same call (arguments) answered with the same result `threshold` times in a row gets a note
 *   for the model that it repeats itself, and once more after that opens it.
 * Any other outcome of the tool starts its count anew. A threshold of 0 turns it off.
 */
export class CircuitBreaker {
  private readonly streaks = new Map<string, { outcome: string; count: number }>();

  constructor(private readonly threshold: number) {}

  /** Records a call's outcome: whether the circuit just opened (and why), or the note the model gets. */
  record(
    tool: string,
    outcome: { error: string } | { args: Record<string, unknown>; result: string },
  ): { opened: string } | { note: string } | undefined {
    const failed = 'error' in outcome;
    // Results are kept as hashes: a run may repeat a long one many times.
    const key = failed
      ? `error ${outcome.error}`
      : `ok ${textHash(JSON.stringify(outcome.args))} ${textHash(outcome.result)}`;
    const streak = this.streaks.get(tool);
    const count = streak?.outcome === key ? streak.count + 1 : 1;
    this.streaks.set(tool, { outcome: key, count });
    if (this.threshold === 0 || count < this.threshold) return undefined;
    if (failed) return { opened: `${tool} failed ${count} times in a row: ${outcome.error}` };
    if (count > this.threshold)
      return {
        opened: `${tool} was called ${count} times in a row with the same arguments and gave the same result each time`,
      };
    return {
      note:
        `You have called ${tool} with the same arguments ${count} times in a row and got the same result each time. ` +
        'Do not call it again with these arguments: use the result you have, try something else, or give your final answer.',
    };
  }
}
