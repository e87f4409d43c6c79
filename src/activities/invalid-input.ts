import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../contract/errors';

/** A run's input refused, with what is wrong in `message`: a non-retryable `InvalidInput`. */
export function invalidInput(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: FailureType.InvalidInput, message, nonRetryable: true });
}
