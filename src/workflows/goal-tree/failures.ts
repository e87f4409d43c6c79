import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, TimeoutFailure } from '@temporalio/common';
import { reportedUsage, type Usage } from '../../contract/model/usage';

/** How a goal reads the failures of its activities and child workflows. Pure. */

/** Whether a child workflow ended by its execution timeout (a goal's time limit). */
export function timedOut(err: unknown): boolean {
  return err instanceof ChildWorkflowFailure && err.cause instanceof TimeoutFailure;
}

/** An activity's or child's failure in one line: `<type>: <message>` of the application failure it carries, else its message. */
export function describeFailure(err: unknown): string {
  if (err instanceof ActivityFailure || err instanceof ChildWorkflowFailure) {
    const cause = err.cause;
    if (cause instanceof ApplicationFailure && cause.type) return `${cause.type}: ${cause.message}`;
    return cause?.message ?? err.message;
  }
  return err instanceof Error ? err.message : String(err);
}

/** What a failed child workflow reported it used before it failed (its failure's details, `usageReport`), if it did. */
export function usageOfFailedChild(err: unknown): Usage | undefined {
  const cause = err instanceof ChildWorkflowFailure ? err.cause : undefined;
  return cause instanceof ApplicationFailure ? reportedUsage(cause.details ?? undefined) : undefined;
}
