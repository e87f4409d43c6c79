import { ApplicationFailure } from '@temporalio/common';
import type { ForkPoint } from '../contract/activity-io';
import { FailureType } from '../contract/errors';
import { ForkRefusedError } from '../contract/fork/fork';
import type { ForkInput } from '../contract/fork/schema';

export interface ResolveForkDeps {
  /** Reads a source run's transcript at an iteration (the worker's: `readForkPoint` over its client). */
  forkPoint?(fork: Pick<ForkInput, 'workflowId' | 'runId' | 'iteration'>): Promise<ForkPoint>;
}

/**
 * `resolveFork`: the transcript a forked run starts from, read from the source run's history and
 * `transcript` query. A fork that cannot be (no such run, an iteration out of range, a transcript
 * summarised away) fails as a non-retryable `InvalidInput` that says why; a server that cannot be
 * reached is retried.
 */
export function createResolveFork(deps: ResolveForkDeps) {
  return async function resolveFork(fork: ForkInput): Promise<ForkPoint> {
    if (!deps.forkPoint) {
      throw ApplicationFailure.create({
        type: FailureType.InvalidInput,
        message: 'This worker cannot fork runs: it was built without a Temporal client.',
        nonRetryable: true,
      });
    }
    try {
      return await deps.forkPoint(fork);
    } catch (err) {
      if (!(err instanceof ForkRefusedError)) throw err;
      throw ApplicationFailure.create({ type: FailureType.InvalidInput, message: err.message, nonRetryable: true });
    }
  };
}
