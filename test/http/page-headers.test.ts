import { describe, expect, it } from 'vitest';
import type { WaveloopClient } from '../../src/client/waveloop-client';
import { createHttpApp } from '../../src/http';
import { peopleWith } from '../support/people';

/** The headers of what `waveloop serve` answers, and its icon, without a socket (`app.request`). */
const app = createHttpApp({
  client: {} as WaveloopClient,
  people: peopleWith([{ name: 'alice', token: 'alice-token-01' }]),
  log: () => {},
});

describe('the pages’ headers', () => {
  it('every answer, page or API, forbids framing, type sniffing, inline script and other origins', async () => {
    for (const path of ['/', '/runs', '/api/runs', '/assets/inbox.css']) {
      const response = await app.request(path);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp, path).toContain("default-src 'self'");
      expect(csp, path).toContain("script-src 'self';");
      expect(csp, path).not.toContain('unsafe-inline');
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(response.headers.get('x-frame-options'), path).toBe('DENY');
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(response.headers.get('referrer-policy'), path).toBe('no-referrer');
    }
  });

  it('/favicon.ico is the inbox’s icon, without a token; the pages link it', async () => {
    const icon = await app.request('/favicon.ico');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toMatch(/^<svg /);
    const page = await app.request('/?token=alice-token-01', { redirect: 'manual' });
    const session = page.headers.get('set-cookie')!.split(';')[0]!;
    const inbox = await (await app.request('/runs', { headers: { cookie: session } })).text();
    expect(inbox).toContain('<link rel="icon" href="/favicon.ico" type="image/svg+xml" />');
  });
});
