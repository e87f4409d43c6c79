import { createHmac } from 'node:crypto';

/** The header that carries a webhook's signature. */
export const SIGNATURE_HEADER = 'X-Waveloop-Signature';

/**
 * The signature of a webhook sent at `timestamp` (Unix seconds) with `body` (the raw JSON), as
 * Stripe signs theirs: `t=<timestamp>,v1=<hex HMAC-SHA256 of "<timestamp>.<body>" with the secret>`.
 * A receiver recomputes it over the raw body it got and compares in constant time; the timestamp
 * lets it refuse an old request replayed.
 */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}
