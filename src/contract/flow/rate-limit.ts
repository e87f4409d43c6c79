/**
 * What the model activity's heartbeats carry while its call waits at the worker's rate-limit gate
 * (the endpoint's rate-limit headers, a 429's `retry-after`, `WAVELOOP_MODEL_TPM`): when the gate
 * expects to open. A follower reads it from the pending activity and says the run waits for the
 * model's rate limit.
 */
export interface RateLimitWait {
  iteration: number;
  /** When the gate expects to let the call go (epoch milliseconds). */
  rateLimitedUntil: number;
}

export function isRateLimitWait(value: unknown): value is RateLimitWait {
  return typeof (value as RateLimitWait | undefined)?.rateLimitedUntil === 'number';
}

/** What a run's status and a follower say while a model call waits for the model's rate limit. */
export const RATE_LIMIT_WAIT_TEXT = "waiting for the model's rate limit";
