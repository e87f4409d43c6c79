import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { webhookSignature } from '../../../src/activities/webhooks/signature';

describe('webhookSignature', () => {
  it('webhookSignature: t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">, as a receiver recomputes it with node:crypto', () => {
    const body = '{"event":"completed","workflowId":"inv-42"}';
    const header = webhookSignature('whsec', 1_790_000_000, body);
    const expected = createHmac('sha256', 'whsec').update(`1790000000.${body}`).digest('hex');
    expect(header).toBe(`t=1790000000,v1=${expected}`);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it('webhookSignature: another secret, another time or another byte of the body gives another signature', () => {
    const base = webhookSignature('whsec', 1_790_000_000, '{"a":1}');
    expect(webhookSignature('other', 1_790_000_000, '{"a":1}')).not.toBe(base);
    expect(webhookSignature('whsec', 1_790_000_001, '{"a":1}').split(',')[1]).not.toBe(base.split(',')[1]);
    expect(webhookSignature('whsec', 1_790_000_000, '{"a": 1}')).not.toBe(base);
  });
});
