import { ApplicationFailure } from '@temporalio/common';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { FailureType } from '../../contract/errors';

interface StatusRule {
  type: FailureType;
  retryable: boolean;
  hint: string;
}

/** How each HTTP status of the model endpoint is treated. */
const STATUS_RULES: Record<number, StatusRule> = {
  400: { type: FailureType.ModelBadRequest, retryable: false, hint: 'the endpoint refused the request' },
  401: {
    type: FailureType.ModelAuthentication,
    retryable: false,
    hint: 'the endpoint rejected the API key; check OPENAI_API_KEY (and OPENAI_BASE_URL)',
  },
  403: {
    type: FailureType.ModelPermissionDenied,
    retryable: false,
    hint: 'the API key may not use this model or endpoint',
  },
  404: {
    type: FailureType.ModelNotFound,
    retryable: false,
    hint: 'the model or endpoint does not exist; check WAVELOOP_MODEL and OPENAI_BASE_URL',
  },
  408: { type: FailureType.ModelTimeout, retryable: true, hint: 'the endpoint timed out' },
  409: { type: FailureType.ModelServerError, retryable: true, hint: 'the endpoint reported a conflict' },
  422: { type: FailureType.ModelBadRequest, retryable: false, hint: 'the endpoint could not process the request' },
  429: { type: FailureType.ModelRateLimit, retryable: true, hint: 'rate limited' },
};

const SERVER_ERROR: StatusRule = { type: FailureType.ModelServerError, retryable: true, hint: 'the endpoint failed' };

/**
 * Maps an error of the `openai` client to the `ApplicationFailure` Temporal acts on:
 * 400/401/403/404/422 are non-retryable, and so is a host name that does not resolve
 * (`ENOTFOUND`: `ModelHostNotFound`); 408/409/429/5xx and other network errors are retried, and a
 * `retry-after` (or `retry-after-ms`) header becomes the next retry's delay; an error sent in the
 * middle of a stream is a retryable `ModelServerError` unless its code says otherwise. The cause is kept.
 * The message names the endpoint (`endpoint`, the client's base URL) and, for a network error, the
 * innermost cause (`connect ECONNREFUSED 127.0.0.1:8000`), so the first failed attempt's warning
 * already says what to fix.
 */
export function toModelFailure(err: unknown, endpoint?: string): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  const theEndpoint = endpoint ? `The model endpoint ${endpoint}` : 'The model endpoint';
  const answered = `${endpoint ? `Model endpoint ${endpoint}` : 'Model endpoint'} answered`;
  if (err instanceof APIUserAbortError) {
    return ApplicationFailure.create({
      type: FailureType.ModelTimeout,
      message: 'The model call was cancelled.',
      cause: err,
    });
  }
  if (err instanceof APIConnectionTimeoutError) {
    return failure(FailureType.ModelTimeout, true, `${theEndpoint} did not answer in time: ${err.message}`, err);
  }
  const unresolved = err instanceof Error ? unresolvedHost(err, endpoint) : undefined;
  if (unresolved) {
    return failure(
      FailureType.ModelHostNotFound,
      false,
      `${theEndpoint} could not be reached: its host ${unresolved} does not resolve (ENOTFOUND); check OPENAI_BASE_URL.`,
      err as Error,
    );
  }
  if (err instanceof APIConnectionError) {
    return failure(
      FailureType.ModelConnection,
      true,
      `${theEndpoint} could not be reached: ${describeCause(err)}`,
      err,
    );
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    const rule = STATUS_RULES[err.status] ?? (err.status >= 500 ? SERVER_ERROR : undefined);
    if (err.status === 400 && isContextOverflow(err)) {
      return failure(
        FailureType.ModelContextExceeded,
        false,
        `${answered} 400: the transcript does not fit the model's context window. ${err.message}`,
        err,
      );
    }
    if (rule) {
      const message = `${answered} ${err.status}: ${rule.hint}. ${err.message}`;
      return failure(rule.type, rule.retryable, message, err, rule.retryable ? retryAfterMs(err.headers) : undefined);
    }
    return failure(FailureType.ModelBadRequest, false, `${answered} ${err.status}: ${err.message}`, err);
  }
  if (err instanceof APIError && err.status === undefined && err.error !== undefined)
    return streamFailure(err, theEndpoint);
  const error = err instanceof Error ? err : new Error(String(err));
  return failure(
    FailureType.ModelConnection,
    true,
    `The model call${endpoint ? ` to ${endpoint}` : ''} failed: ${error.message}`,
    error,
  );
}

/**
 * An error event in the middle of a streamed reply (llama.cpp's `data: {"error": {"code": 500, …}}`):
 * the `openai` client throws it without a status. The error's own `code`, when it is a number, is
 * read as the status would be (a 400 saying the context window is exceeded is `ModelContextExceeded`,
 * a 429 is `ModelRateLimit`); any other is a retryable `ModelServerError`.
 */
function streamFailure(err: APIError, theEndpoint: string): ApplicationFailure {
  const code = (err.error as { code?: unknown } | undefined)?.code;
  const status = typeof code === 'number' ? code : undefined;
  const said = `${theEndpoint} sent an error in the middle of its reply${status ? ` (${status})` : ''}`;
  if (status !== undefined && status >= 400 && status < 500) {
    if (isContextOverflow(err))
      return failure(
        FailureType.ModelContextExceeded,
        false,
        `${said}: the transcript does not fit the model's context window. ${err.message}`,
        err,
      );
    const rule = STATUS_RULES[status];
    if (rule) return failure(rule.type, rule.retryable, `${said}: ${rule.hint}. ${err.message}`, err);
  }
  return failure(FailureType.ModelServerError, true, `${said}: ${err.message}`, err);
}

/**
 * Whether a 400 says the request is longer than the model's context window: OpenAI's error code, or
 * the wording OpenAI-compatible servers use (vLLM, llama.cpp, Azure, LiteLLM).
 */
export function isContextOverflow(err: APIError): boolean {
  return (
    err.code === 'context_length_exceeded' ||
    err.type === 'exceed_context_size_error' ||
    /context (length|window|size)|maximum context|too many tokens|prompt is too long/i.test(err.message)
  );
}

function failure(type: FailureType, retryable: boolean, message: string, cause: Error, nextRetryDelayMs?: number) {
  return ApplicationFailure.create({
    type,
    message,
    nonRetryable: !retryable,
    cause,
    nextRetryDelay: nextRetryDelayMs,
  });
}

/** The delay the endpoint asked for, in milliseconds: `retry-after-ms`, else `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers | undefined, now: () => number = Date.now): number | undefined {
  if (!headers) return undefined;
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.get('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  if (Number.isFinite(date)) return Math.max(0, date - now());
  return undefined;
}

/**
 * The host name whose lookup failed for good (`ENOTFOUND`, the resolver's "no such name"), from the
 * error's causes (else the endpoint's host), or undefined when no cause says so. `EAI_AGAIN` (the
 * resolver could not answer now) is not one: it passes, and is retried as any connection error.
 */
function unresolvedHost(err: Error, endpoint: string | undefined): string | undefined {
  for (let cause: unknown = err, depth = 0; cause instanceof Error && depth < 6; depth++) {
    const { code, hostname } = cause as { code?: unknown; hostname?: unknown };
    if (code === 'ENOTFOUND') return typeof hostname === 'string' && hostname ? hostname : hostOf(endpoint);
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The host of `url`, or a stand-in when there is none to read. */
function hostOf(url: string | undefined): string {
  try {
    return new URL(url ?? '').hostname || 'of the endpoint';
  } catch {
    return 'of the endpoint';
  }
}

/** The error's message, then its causes' down to the innermost (`Connection error. (fetch failed: connect ECONNREFUSED …)`). */
function describeCause(err: Error): string {
  const causes: string[] = [];
  for (
    let cause = (err as { cause?: unknown }).cause;
    cause instanceof Error && causes.length < 5;
    cause = (cause as { cause?: unknown }).cause
  ) {
    causes.push(cause.message || String((cause as { code?: unknown }).code ?? cause.name));
  }
  return causes.length ? `${err.message} (${causes.join(': ')})` : err.message;
}
