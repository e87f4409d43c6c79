import { workflowInfo } from '@temporalio/workflow';
import { alarm } from '../alarm';
import { childDeadline, MIN_CHILD_TIME_MS } from './budget';
import type { GoalTime } from './ledger';

/**
 * A goal's time. Its children must be done by `childDeadlineMs` (its deadline minus a reserve,
 * reckoned from its start event); two durable timers, started when the goal starts, say when that
 * time is up and when it is too close to start a child. A replay sees them fire at the same points
 * of the history, so it decides as the run did.
 */
export interface GoalClock extends GoalTime {
  childDeadlineMs: number;
  /** The timeout a child gets: what is left until `childDeadlineMs` (at least a second: a timeout of 0 would mean none). */
  childTimeoutMs(): number;
}

/** The clock of the goal whose deadline is `deadlineMs` (epoch ms); the root keeps no reserve. */
export function goalClock(deadlineMs: number, isRoot: boolean): GoalClock {
  const startedAt = workflowInfo().startTime.getTime();
  const childDeadlineMs = childDeadline(deadlineMs, startedAt, isRoot);
  return {
    childDeadlineMs,
    isUp: alarm(childDeadlineMs, startedAt),
    tooLateToStart: alarm(childDeadlineMs - MIN_CHILD_TIME_MS, startedAt),
    childTimeoutMs: () => Math.max(1_000, childDeadlineMs - Date.now()),
  };
}
