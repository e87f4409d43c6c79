/**
 * Failure types, as `ApplicationFailure.type` strings: what a client sees when a run or an activity
 * fails. Three families, after openai-agents-js: the user's mistake, the model's, the system's.
 */
export const FailureType = {
  /** The run's input (or an update's) is invalid: fix it and start again. Never retried. */
  InvalidInput: 'InvalidInput',

  /**
   * A decision by someone who may not make it: not among the call's approvers, or the run's starter
   * approving under four eyes. The update is refused and the call keeps waiting.
   */
  DecisionNotAllowed: 'DecisionNotAllowed',

  /** The model endpoint rejected the credentials (401). Never retried. */
  ModelAuthentication: 'ModelAuthentication',
  /** The credentials may not use this model or endpoint (403). Never retried. */
  ModelPermissionDenied: 'ModelPermissionDenied',
  /** The model or endpoint does not exist (404). Never retried. */
  ModelNotFound: 'ModelNotFound',
  /** The endpoint refused the request as malformed (400, 422). Never retried. */
  ModelBadRequest: 'ModelBadRequest',
  /**
   * The transcript no longer fits the model's context window (a 400 saying so). Never retried as it
   * is: the loop compacts the transcript once and asks again (docs/how-it-works.md).
   */
  ModelContextExceeded: 'ModelContextExceeded',
  /** Too many requests (429); retried after the endpoint's `retry-after`. */
  ModelRateLimit: 'ModelRateLimit',
  /** The endpoint failed (5xx) or reported a conflict (409); retried. */
  ModelServerError: 'ModelServerError',
  /** The request timed out (408 or no answer in time); retried. */
  ModelTimeout: 'ModelTimeout',
  /** The endpoint could not be reached (connection refused or reset, the resolver not answering); retried. */
  ModelConnection: 'ModelConnection',
  /**
   * The endpoint's host name does not resolve (`ENOTFOUND`): `OPENAI_BASE_URL` names no host. Never
   * retried: the run fails at once, naming the host.
   */
  ModelHostNotFound: 'ModelHostNotFound',
  /** The endpoint's content filter withheld the reply (`finish_reason: content_filter`). Never retried. */
  ModelContentFiltered: 'ModelContentFiltered',
  /** The answer was cut off at the model's output limit (`finish_reason: length`). Never retried. */
  ModelOutputTruncated: 'ModelOutputTruncated',
  /** The model replied with neither text nor tool calls; retried. */
  ModelEmptyReply: 'ModelEmptyReply',
  /** The model call kept failing until its retries ran out; the run fails with this. */
  ModelUnavailable: 'ModelUnavailable',

  /** A tool's arguments failed its schema; goes back to the model, never retried. */
  InvalidToolArguments: 'InvalidToolArguments',
  /** A tool reported an error that retrying cannot fix; goes back to the model. */
  ToolError: 'ToolError',

  /**
   * A webhook cannot be delivered as it is: its receiver refused it (a 4xx answer other than 408 and
   * 429), or fetch will never send it (a port the Fetch standard blocks, a user name or password in
   * the URL). Not tried again.
   */
  WebhookRefused: 'WebhookRefused',
  /**
   * A webhook's receiver could not be reached (no answer, connection refused, a host name that does
   * not resolve) or answered 408, 429 or 5xx: tried again.
   */
  WebhookUndelivered: 'WebhookUndelivered',
} as const;

export type FailureType = (typeof FailureType)[keyof typeof FailureType];

/** Model failures a retry cannot fix. */
export const NON_RETRYABLE_MODEL_FAILURES: readonly FailureType[] = [
  FailureType.ModelAuthentication,
  FailureType.ModelPermissionDenied,
  FailureType.ModelNotFound,
  FailureType.ModelBadRequest,
  FailureType.ModelHostNotFound,
  FailureType.ModelContextExceeded,
  FailureType.ModelContentFiltered,
  FailureType.ModelOutputTruncated,
];
