import { WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { ZodError } from 'zod';
import { NoWorkerError } from '../client/no-worker-error';
import { describeIssues } from '../contract/issues';
import { grpcErrorOf, GrpcStatus } from '../temporal/grpc-status';
import { startWorker } from './worker-hint';

/**
 * How the CLI words a failure: `UsageError` marks a mistake in the command line or the configuration,
 * and `describeError` turns any error a command throws into the one line the person reads.
 */

/** A mistake in the command line or the configuration; its message says what to change. */
export class UsageError extends Error {}

/**
 * The line to print for `err`: a usage error's own message, zod issues as `Invalid input: …`, a failed
 * run with its failure type, `No run or goal tree with id <id>.` (for the client's error and for the
 * server's NOT_FOUND about a workflow), a refused update as `Refused: …`, a decision no worker took
 * with how to start one, else the message (with the server's details, when it answered).
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
  if (err instanceof WorkflowNotFoundError) return `No run or goal tree with id ${err.workflowId}.`;
  const grpc = grpcErrorOf(err);
  if (grpc?.code === GrpcStatus.NOT_FOUND) {
    // The server says e.g. `workflow not found for ID: goal-1`.
    const id = /\bID:\s*"?([^"\s,]+)/.exec(grpc.details)?.[1];
    return id ? `No run or goal tree with id ${id}.` : `Not found: ${grpc.details}`;
  }
  if (err instanceof WorkflowUpdateFailedError) return `Refused: ${err.cause?.message ?? err.message}`;
  if (err instanceof NoWorkerError) {
    return `${err.message} Start one with ${startWorker(err.taskQueue)}.`;
  }
  // The client's `ServiceError` says only what it tried (`Workflow Update failed`): add the server's why.
  if (grpc && err instanceof Error && err !== grpc) return `${err.message}: ${grpc.details}`;
  return err instanceof Error ? err.message : String(err);
}
