import { WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { ZodError } from 'zod';
import { describeIssues } from '../common/issues';

/**
 * How the CLI words a failure: `UsageError` marks a mistake in the command line or the configuration,
 * and `describeError` turns any error a command throws into the one line the person reads.
 */

/** A mistake in the command line or the configuration; its message says what to change. */
export class UsageError extends Error {}

/**
 * The line to print for `err`: a usage error's own message, zod issues as `Invalid input: …`, a failed
 * run with its failure type, `No such run: <id>`, a refused update as `Refused: …`, else the message.
 */
export function describeError(err: unknown): string {
  if (err instanceof UsageError) return err.message;
  if (err instanceof ZodError) {
    return `Invalid input: ${describeIssues(err.issues, 'input')}`;
  }
  if (err instanceof WorkflowFailedError) {
    const cause = err.cause;
    if (cause instanceof ApplicationFailure) return `Run failed (${cause.type}): ${cause.message}`;
    return `Run failed: ${cause?.message ?? err.message}`;
  }
  if (err instanceof WorkflowNotFoundError) return `No such run: ${err.workflowId}`;
  if (err instanceof WorkflowUpdateFailedError) return `Refused: ${err.cause?.message ?? err.message}`;
  return err instanceof Error ? err.message : String(err);
}
