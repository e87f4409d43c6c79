import { WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { ZodError } from 'zod';
import { NoWorkerError } from '../client/no-worker-error';
import { FailureType } from '../contract/errors';
import { describeIssues } from '../contract/issues';
import { GrpcStatus, isGrpcStatus } from '../temporal/grpc-status';

/**
 * The errors of the HTTP API: each has a status and a code, and says in its message what went wrong
 * in words a caller can act on. `toHttpError` turns whatever a handler throws into one, so a response
 * never carries a stack or Temporal's gRPC text.
 */

/** The codes of the API's errors, by status. */
export type HttpErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'no_worker'
  | 'internal';

/** An error the API answers with `{ "error": { "code", "message" } }` and `status`. */
export class HttpError extends Error {
  override readonly name = 'HttpError';

  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 500 | 503,
    readonly code: HttpErrorCode,
    message: string,
  ) {
    super(message);
  }

  /** The response body. */
  body(): { error: { code: HttpErrorCode; message: string } } {
    return { error: { code: this.code, message: this.message } };
  }
}

/**
 * The `HttpError` for `err`: zod issues and a bad cursor are 400, a decision its person may not
 * make 403, an unknown workflow 404, a workflow id in use and an update the workflow refused
 * (nothing waits for it) 409, no worker 503.
 * Anything else is a 500 whose message says only that it failed; `log` gets the error's message.
 */
export function toHttpError(err: unknown, log: (line: string) => void): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof ZodError)
    return new HttpError(400, 'bad_request', `Invalid input: ${describeIssues(err.issues, 'input')}`);
  if (err instanceof TypeError && err.message.startsWith('cursor:'))
    return new HttpError(400, 'bad_request', err.message);
  if (err instanceof WorkflowNotFoundError)
    return new HttpError(404, 'not_found', `No run or goal tree with id ${err.workflowId}.`);
  if (isGrpcStatus(err, GrpcStatus.NOT_FOUND))
    return new HttpError(404, 'not_found', 'No run or goal tree with that id.');
  if (err instanceof WorkflowExecutionAlreadyStartedError || isGrpcStatus(err, GrpcStatus.ALREADY_EXISTS))
    return new HttpError(409, 'conflict', 'A run with that workflowId is running already.');
  if (err instanceof WorkflowUpdateFailedError)
    return isNotAllowed(err)
      ? new HttpError(403, 'forbidden', `Refused: ${err.cause?.message ?? err.message}`)
      : new HttpError(409, 'conflict', `Refused: ${err.cause?.message ?? err.message}`);
  if (err instanceof NoWorkerError) return new HttpError(503, 'no_worker', err.message);
  if (err instanceof WorkflowFailedError) return new HttpError(409, 'conflict', 'The run failed.');
  log(`waveloop serve: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
  return new HttpError(500, 'internal', 'The server failed to answer; its log says why.');
}

/** An update the run refused because its decider may not make it (`DecisionNotAllowed`). */
function isNotAllowed(err: WorkflowUpdateFailedError): boolean {
  return err.cause instanceof ApplicationFailure && err.cause.type === FailureType.DecisionNotAllowed;
}
