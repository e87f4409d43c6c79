import { retryAfterMs } from './errors';

/** How long the gate stays shut after a 429 that says nothing of when to come back. */
const DEFAULT_BACK_OFF_MS = 1_000;
/** The window `tokensPerMinute` counts over. */
const MINUTE_MS = 60_000;
/** The longest single wait between two looks at the gate (the caller heartbeats between them). */
const MAX_NAP_MS = 1_000;

export interface RateLimitGateOptions {
  /** The most tokens (prompt and reply) the worker's model calls may spend in any minute (`WAVELOOP_MODEL_TPM`). */
  tokensPerMinute?: number;
  now?: () => number;
}

/**
 * What a worker knows of its model endpoint's rate limit, shared by every model call of the worker,
 * so its runs slow down and back off together instead of each on its own:
 *
 * - a 429 shuts the gate for every call until its `retry-after` (`retry-after-ms`) has passed;
 * - `x-ratelimit-remaining-requests: 0` shuts it until `x-ratelimit-reset-requests`;
 * - `x-ratelimit-remaining-tokens` lower than a call's estimated prompt holds that call until
 *   `x-ratelimit-reset-tokens`; each call let through takes its estimate off what remains, so the
 *   calls let through on one reading do not together overrun it;
 * - with `tokensPerMinute`, a call whose estimate would bring the tokens of the last minute past it
 *   waits until enough of them have left the minute (the first call of an empty minute always goes).
 *
 * The endpoint's headers count every client of the API key, so they are how workers learn of each
 * other's calls; `tokensPerMinute` counts this worker's calls only.
 */
export class RateLimitGate {
  private readonly tokensPerMinute: number | undefined;
  private readonly now: () => number;
  private shutUntil = 0;
  private tokens: { remaining: number; resetAt: number } | undefined;
  private readonly spent: Array<{ at: number; tokens: number }> = [];

  constructor({ tokensPerMinute, now = Date.now }: RateLimitGateOptions = {}) {
    this.tokensPerMinute = tokensPerMinute;
    this.now = now;
  }

  /** Until when (epoch ms) a call of `estimate` tokens must wait; 0 when it may go now. */
  heldUntil(estimate: number): number {
    const now = this.now();
    let until = this.shutUntil > now ? this.shutUntil : 0;
    if (this.tokens && this.tokens.resetAt > now && this.tokens.remaining < estimate) {
      until = Math.max(until, this.tokens.resetAt);
    }
    if (this.tokensPerMinute !== undefined) {
      this.forget(now);
      let total = this.spent.reduce((sum, entry) => sum + entry.tokens, 0);
      for (const entry of this.spent) {
        if (total + estimate <= this.tokensPerMinute) break;
        total -= entry.tokens;
        until = Math.max(until, entry.at + MINUTE_MS);
      }
    }
    return until;
  }

  /**
   * Waits until a call of `estimate` tokens may go, then counts it as sent. `onHeld` is called with
   * the time the gate expects to open each time the call finds it shut (at most every second), so
   * the caller can say so; `signal` gives up the wait (the activity was cancelled).
   */
  async pass(estimate: number, onHeld: (until: number) => void, signal?: AbortSignal): Promise<void> {
    for (let until = this.heldUntil(estimate); until > 0; until = this.heldUntil(estimate)) {
      signal?.throwIfAborted();
      onHeld(until);
      await nap(Math.min(MAX_NAP_MS, Math.max(1, until - this.now())), signal);
    }
    if (this.tokens) this.tokens.remaining -= estimate;
    this.spent.push({ at: this.now(), tokens: estimate });
  }

  /** A call's real usage, once its reply came: corrects the estimate it passed with. */
  used(estimate: number, tokens: number): void {
    if (tokens !== estimate) this.spent.push({ at: this.now(), tokens: tokens - estimate });
  }

  /** Reads a response's (or an error's) status and rate-limit headers. */
  observe(status: number | undefined, headers: Headers | undefined): void {
    const now = this.now();
    if (status === 429) {
      this.shutUntil = Math.max(this.shutUntil, now + (retryAfterMs(headers, this.now) ?? DEFAULT_BACK_OFF_MS));
    }
    if (!headers) return;
    const requests = count(headers.get('x-ratelimit-remaining-requests'));
    if (requests === 0) {
      const reset = durationMs(headers.get('x-ratelimit-reset-requests')) ?? DEFAULT_BACK_OFF_MS;
      this.shutUntil = Math.max(this.shutUntil, now + reset);
    }
    const tokens = count(headers.get('x-ratelimit-remaining-tokens'));
    if (tokens !== undefined) {
      const reset = durationMs(headers.get('x-ratelimit-reset-tokens')) ?? DEFAULT_BACK_OFF_MS;
      this.tokens = { remaining: tokens, resetAt: now + reset };
    }
  }

  private forget(now: number): void {
    while (this.spent.length && this.spent[0]!.at + MINUTE_MS <= now) this.spent.shift();
  }
}

function count(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** A reset header's duration in milliseconds: OpenAI's `6m0s`, `1.5s`, `20ms`, or a bare number of seconds. */
export function durationMs(value: string | null): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (!parts.length || parts.map((part) => part[0]).join('') !== text) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
  return parts.reduce((sum, [, n, u]) => sum + Number(n) * unit[u as keyof typeof unit], 0);
}

function nap(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
