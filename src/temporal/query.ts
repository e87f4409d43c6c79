import { isGrpcCancelledError, isGrpcDeadlineError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { QueryDefinition } from '@temporalio/common';

const ATTEMPT_DEADLINE_MS = 5_000;
const ATTEMPTS = 4;

/**
 * Asks a workflow query with a short deadline and asks again when it times out. A query sent to a
 * run that has just closed is now and then never handed to a worker (seen with the dev server and
 * SDK 1.24 in about one query in ten right after completion); asked again, it is answered at once.
 * Any other error is thrown as is.
 */
export async function queryWithRetry<T>(
  client: Client,
  handle: WorkflowHandle,
  query: QueryDefinition<T>,
  { attempts = ATTEMPTS, deadlineMs = ATTEMPT_DEADLINE_MS } = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.withDeadline(Date.now() + deadlineMs, () => handle.query(query));
    } catch (err) {
      // A query that ran out of time: DEADLINE_EXCEEDED, or CANCELLED when the client's deadline expired.
      if (attempt >= attempts || !(isGrpcDeadlineError(err) || isGrpcCancelledError(err))) throw err;
    }
  }
}
