import { ApplicationFailure } from '@temporalio/common';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { retryAfterMs, toModelFailure } from '../../../src/activities/model/errors';

function apiError(status: number, headers: Record<string, string> = {}): APIError {
  return APIError.generate(status, { message: `status ${status}` }, undefined, new Headers(headers));
}

describe('toModelFailure', () => {
  it.each([
    [400, 'ModelBadRequest'],
    [401, 'ModelAuthentication'],
    [403, 'ModelPermissionDenied'],
    [404, 'ModelNotFound'],
    [422, 'ModelBadRequest'],
  ])('toModelFailure: %i is a non-retryable %s', (status, type) => {
    const failure = toModelFailure(apiError(status));
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe(type);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.cause).toBeInstanceOf(APIError);
  });

  it.each([
    [408, 'ModelTimeout'],
    [409, 'ModelServerError'],
    [429, 'ModelRateLimit'],
    [500, 'ModelServerError'],
    [502, 'ModelServerError'],
    [503, 'ModelServerError'],
  ])('toModelFailure: %i is a retryable %s', (status, type) => {
    const failure = toModelFailure(apiError(status));
    expect(failure.type).toBe(type);
    expect(failure.nonRetryable).toBe(false);
  });

  it('toModelFailure: 429 with retry-after sets the next retry delay', () => {
    expect(toModelFailure(apiError(429, { 'retry-after': '7' })).nextRetryDelay).toBe(7_000);
    expect(toModelFailure(apiError(429, { 'retry-after-ms': '1500' })).nextRetryDelay).toBe(1_500);
    expect(toModelFailure(apiError(429)).nextRetryDelay).toBeUndefined();
  });

  it('toModelFailure: a non-retryable status ignores retry-after', () => {
    expect(toModelFailure(apiError(401, { 'retry-after': '7' })).nextRetryDelay).toBeUndefined();
  });

  it.each([
    ["OpenAI's code", { message: 'Request too large', code: 'context_length_exceeded' }],
    [
      "OpenAI's wording",
      {
        message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
      },
    ],
    ["vLLM's wording", { message: 'The prompt is too long for the context window of this model.' }],
  ])(
    'toModelFailure: a 400 saying the transcript is too long (%s) is a non-retryable ModelContextExceeded',
    (_name, body) => {
      const failure = toModelFailure(APIError.generate(400, { error: body }, undefined, new Headers()));
      expect(failure.type).toBe('ModelContextExceeded');
      expect(failure.nonRetryable).toBe(true);
      expect(failure.message).toMatch(
        /^Model endpoint answered 400: the transcript does not fit the model's context window\./,
      );
    },
  );

  it("toModelFailure: an error event inside a stream (llama.cpp's server error) is a retryable ModelServerError naming the endpoint", () => {
    // What the `openai` client throws for `data: {"error": {…}}` mid-stream: an APIError without a status.
    const inStream = new APIError(
      undefined,
      { code: 500, message: 'failed to decode the batch', type: 'server_error' },
      undefined,
      undefined,
    );
    const failure = toModelFailure(inStream, 'http://llama:8080/v1');
    expect(failure).toMatchObject({ type: 'ModelServerError', nonRetryable: false });
    expect(failure.message).toBe(
      'The model endpoint http://llama:8080/v1 sent an error in the middle of its reply (500): failed to decode the batch',
    );
    expect(failure.cause).toBe(inStream);
    const noCode = new APIError(undefined, { message: 'something broke' }, undefined, undefined);
    expect(toModelFailure(noCode)).toMatchObject({ type: 'ModelServerError', nonRetryable: false });
  });

  it('toModelFailure: an error event inside a stream with a 400-class code is read as that status (context exceeded, rate limit)', () => {
    const context = new APIError(
      undefined,
      {
        code: 400,
        message: 'the request exceeds the available context size, try increasing it',
        type: 'exceed_context_size_error',
      },
      undefined,
      undefined,
    );
    expect(toModelFailure(context)).toMatchObject({ type: 'ModelContextExceeded', nonRetryable: true });
    const limited = new APIError(
      undefined,
      { code: 429, message: 'slow down', type: 'rate_limit_error' },
      undefined,
      undefined,
    );
    expect(toModelFailure(limited)).toMatchObject({ type: 'ModelRateLimit', nonRetryable: false });
  });

  it("toModelFailure: llama.cpp's 400 saying the context size is exceeded is ModelContextExceeded", () => {
    const error = {
      code: 400,
      message: 'the request exceeds the available context size, try increasing it',
      type: 'exceed_context_size_error',
    };
    expect(toModelFailure(APIError.generate(400, { error }, undefined, new Headers())).type).toBe(
      'ModelContextExceeded',
    );
  });

  it('toModelFailure: network errors are retryable', () => {
    expect(toModelFailure(new APIConnectionError({ message: 'ECONNREFUSED' }))).toMatchObject({
      type: 'ModelConnection',
      nonRetryable: false,
    });
    expect(toModelFailure(new APIConnectionTimeoutError())).toMatchObject({
      type: 'ModelTimeout',
      nonRetryable: false,
    });
  });

  it('toModelFailure: given the endpoint, the message names it', () => {
    expect(toModelFailure(apiError(404), 'http://models.internal/v1').message).toMatch(
      /^Model endpoint http:\/\/models\.internal\/v1 answered 404: /,
    );
    const refused = new APIConnectionError({
      message: 'Connection error.',
      cause: new Error('fetch failed', { cause: new Error('connect ECONNREFUSED 10.0.0.1:80') }),
    });
    expect(toModelFailure(refused, 'http://10.0.0.1/v1').message).toBe(
      'The model endpoint http://10.0.0.1/v1 could not be reached: Connection error. (fetch failed: connect ECONNREFUSED 10.0.0.1:80)',
    );
  });

  it('toModelFailure: a host that does not resolve (ENOTFOUND, from the real client) fails for good, naming the host and the variable', async () => {
    const endpoint = 'http://no-such-host.invalid/v1';
    const openai = new OpenAI({ baseURL: endpoint, apiKey: 'test-key', maxRetries: 0 });
    const err = await openai.chat.completions
      .create({ model: 'fake-model', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIConnectionError);
    const failure = toModelFailure(err, endpoint);
    expect(failure).toMatchObject({ type: 'ModelHostNotFound', nonRetryable: true, cause: err });
    expect(failure.message).toBe(
      'The model endpoint http://no-such-host.invalid/v1 could not be reached: its host no-such-host.invalid does not resolve (ENOTFOUND); check OPENAI_BASE_URL.',
    );
  });

  it('toModelFailure: a resolver that cannot answer now (EAI_AGAIN) is a retryable ModelConnection', () => {
    const lookup = Object.assign(new Error('getaddrinfo EAI_AGAIN models.internal'), {
      code: 'EAI_AGAIN',
      hostname: 'models.internal',
    });
    const err = new APIConnectionError({
      message: 'Connection error.',
      cause: new Error('fetch failed', { cause: lookup }),
    });
    expect(toModelFailure(err, 'http://models.internal/v1')).toMatchObject({
      type: 'ModelConnection',
      nonRetryable: false,
      message: expect.stringContaining('getaddrinfo EAI_AGAIN models.internal'),
    });
  });

  it('toModelFailure: the 401 message says which variable to check', () => {
    expect(toModelFailure(apiError(401)).message).toMatch(/^Model endpoint answered 401: .*OPENAI_API_KEY/);
  });
});

describe('retryAfterMs', () => {
  it('retryAfterMs: reads an HTTP date relative to now', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': 'Sun, 22 Nov 2026 10:00:30 GMT' }), () => now)).toBe(30_000);
  });

  it('retryAfterMs: ignores garbage', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
  });
});
