import { describe, expect, it } from 'vitest';
import { runWebhookRefusal, webhookAllowEntryProblem, type ResolveHost } from '../../../src/contract/webhooks/allow';

/** A resolver that knows a few names, and throws (as ENOTFOUND) for any other. */
const dns: ResolveHost = async (host) => {
  const known: Record<string, string[]> = {
    'hooks.example.com': ['93.184.216.34'],
    'ops.example.com': ['93.184.216.35'],
    'a.example.com': ['93.184.216.36', '2606:2800:220:1::1'],
    'inside.example.com': ['93.184.216.37', '10.0.0.7'],
    'rebind.example.com': ['169.254.169.254'],
    'mapped.example.com': ['::ffff:127.0.0.1'],
  };
  if (!known[host]) throw new Error(`getaddrinfo ENOTFOUND ${host}`);
  return known[host];
};
const allowed = async (url: string, allow: string[]) => (await runWebhookRefusal(url, allow, dns)) === undefined;

describe('WAVELOOP_WEBHOOK_ALLOW: matching', () => {
  it('unset: a run may name no webhook, and the refusal says what to set', async () => {
    expect(await runWebhookRefusal('https://hooks.example.com/x', [], dns)).toBe(
      'The webhook https://hooks.example.com/x is refused: a run may name a webhook only when WAVELOOP_WEBHOOK_ALLOW allows it, and it is not set (the operator sets it to the hosts or URL prefixes runs may name).',
    );
  });

  it('a host takes every URL on it, with any scheme and path; with a port, that port only', async () => {
    const allow = ['hooks.example.com', '127.0.0.1:9000'];
    expect(await allowed('https://hooks.example.com/waveloop', allow)).toBe(true);
    expect(await allowed('http://HOOKS.example.com:8443/x?y=1', allow)).toBe(true);
    expect(await allowed('slack:https://hooks.example.com/services/T/B/x', allow)).toBe(true);
    expect(await allowed('http://127.0.0.1:9000/hook', allow)).toBe(true);
    expect(await allowed('http://127.0.0.1:9001/hook', allow)).toBe(false);
    expect(await allowed('http://127.0.0.1/hook', allow)).toBe(false);
    expect(await allowed('https://hooks.example.com.evil.test/x', allow)).toBe(false);
    expect(await allowed('https://evil.test/hooks.example.com', allow)).toBe(false);
    expect(await runWebhookRefusal('https://ops.example.com/x', allow, dns)).toBe(
      'The webhook https://ops.example.com/x is refused: WAVELOOP_WEBHOOK_ALLOW names neither its host (ops.example.com) nor a URL prefix of it.',
    );
  });

  it('a default port is the port: 127.0.0.1:80 takes http://127.0.0.1/, and :443 https', async () => {
    expect(await allowed('http://127.0.0.1/hook', ['127.0.0.1:80'])).toBe(true);
    expect(await allowed('https://hooks.example.com/x', ['hooks.example.com:443'])).toBe(true);
    expect(await allowed('http://hooks.example.com/x', ['hooks.example.com:443'])).toBe(false);
  });

  it('a URL prefix takes its scheme, host and port, and paths under it at a segment', async () => {
    const allow = ['https://ops.example.com/waveloop'];
    expect(await allowed('https://ops.example.com/waveloop', allow)).toBe(true);
    expect(await allowed('https://ops.example.com/waveloop/runs?x=1', allow)).toBe(true);
    expect(await allowed('https://ops.example.com/waveloopx', allow)).toBe(false);
    expect(await allowed('https://ops.example.com/waveloop/../admin', allow)).toBe(false);
    expect(await allowed('https://ops.example.com/admin', allow)).toBe(false);
    expect(await allowed('http://ops.example.com/waveloop', allow)).toBe(false);
    expect(await allowed('https://ops.example.com:8443/waveloop', allow)).toBe(false);
    expect(await allowed('https://ops.example.com/other/x', ['https://ops.example.com/other/'])).toBe(true);
    expect(await allowed('https://ops.example.com/otherx', ['https://ops.example.com/other/'])).toBe(false);
  });

  it('IPv6 hosts are compared as the URL parser writes them', async () => {
    expect(await allowed('http://[::1]:9000/x', ['[::1]:9000'])).toBe(true);
    expect(await allowed('http://[::ffff:169.254.169.254]/', ['[::ffff:a9fe:a9fe]'])).toBe(true);
    expect(await allowed('http://[::ffff:169.254.169.254]/', ['169.254.169.254'])).toBe(false);
  });

  it('entries that are none are refused, saying what an entry is', () => {
    expect(webhookAllowEntryProblem('hooks.example.com')).toBeUndefined();
    expect(webhookAllowEntryProblem('*.example.com')).toBeUndefined();
    expect(webhookAllowEntryProblem('*')).toBeUndefined();
    expect(webhookAllowEntryProblem('http://127.0.0.1:9000/hooks/')).toBeUndefined();
    expect(webhookAllowEntryProblem('[::1]:9000')).toBeUndefined();
    for (const entry of [
      'ftp://x.example/',
      'hooks.example.com/path',
      'https://u:p@x.example/',
      '::1',
      'a*b',
      '*.x.com:80',
    ])
      expect(webhookAllowEntryProblem(entry), entry).toMatch(
        /^".*" is not a host \(hooks\.example\.com, 127\.0\.0\.1:9000\)/,
      );
  });
});

describe('WAVELOOP_WEBHOOK_ALLOW: non-public addresses', () => {
  const anyPublic = ['*'];

  it('* takes any URL whose host resolves to public addresses only', async () => {
    expect(await allowed('https://hooks.example.com/x', anyPublic)).toBe(true);
    expect(await allowed('https://a.example.com/x', anyPublic)).toBe(true);
    expect(await allowed('https://93.184.216.34/x', anyPublic)).toBe(true);
  });

  it.each([
    [
      'http://169.254.169.254/latest/meta-data',
      'link-local (169.254.0.0/16, where cloud metadata answers) address (169.254.169.254)',
    ],
    [
      'http://[::ffff:169.254.169.254]/',
      'link-local (169.254.0.0/16, where cloud metadata answers), as IPv4-mapped 169.254.169.254 address ([::ffff:a9fe:a9fe])',
    ],
    ['http://localhost:8080/hook', 'loopback address (localhost)'],
    ['http://api.localhost/hook', 'loopback address (api.localhost)'],
    ['http://127.0.0.1:8080/hook', 'loopback (127.0.0.0/8) address (127.0.0.1)'],
    ['http://2130706433/hook', 'loopback (127.0.0.0/8) address (127.0.0.1)'],
    ['http://0x7f.1/hook', 'loopback (127.0.0.0/8) address (127.0.0.1)'],
    ['http://[::1]:8080/', 'loopback (::1) address ([::1])'],
    ['http://0.0.0.0:8080/', 'unspecified ("this network", 0.0.0.0/8) address (0.0.0.0)'],
    ['http://10.1.2.3/', 'private (10.0.0.0/8) address (10.1.2.3)'],
    ['http://192.168.0.10/', 'private (192.168.0.0/16) address (192.168.0.10)'],
    ['http://172.20.0.1/', 'private (172.16.0.0/12) address (172.20.0.1)'],
    ['http://[fd00::5]/', 'unique local, private (fc00::/7) address ([fd00::5])'],
    ['http://[fe80::1]/', 'link-local (fe80::/10) address ([fe80::1])'],
    // The resolved address counts, not the name: one private answer among public ones is enough.
    [
      'https://rebind.example.com/x',
      'link-local (169.254.0.0/16, where cloud metadata answers) address (rebind.example.com → 169.254.169.254)',
    ],
    ['https://inside.example.com/x', 'private (10.0.0.0/8) address (inside.example.com → 10.0.0.7)'],
    [
      'https://mapped.example.com/x',
      'loopback (127.0.0.0/8), as IPv4-mapped 127.0.0.1 address (mapped.example.com → ::ffff:127.0.0.1)',
    ],
  ])('under *, %s is refused: %s', async (url, why) => {
    const refusal = await runWebhookRefusal(url, anyPublic, dns);
    expect(refusal).toContain(`The webhook ${url} is refused: it points at a ${why}`);
    expect(refusal).toContain('a run may name one only when WAVELOOP_WEBHOOK_ALLOW names its host');
  });

  it('*.domain takes its subdomains at public addresses, not the domain itself', async () => {
    const allow = ['*.example.com'];
    expect(await allowed('https://hooks.example.com/x', allow)).toBe(true);
    expect(await allowed('https://rebind.example.com/x', allow)).toBe(false);
    expect(await allowed('https://example.com/x', allow)).toBe(false);
    expect(await allowed('https://example.com.evil.test/x', allow)).toBe(false);
  });

  it('an entry naming the host or a prefix of it lets a run name a non-public address', async () => {
    expect(await allowed('http://127.0.0.1:8080/hook', ['*', '127.0.0.1:8080'])).toBe(true);
    expect(await allowed('http://127.0.0.1:8081/hook', ['*', '127.0.0.1:8080'])).toBe(false);
    expect(await allowed('https://inside.example.com/x', ['inside.example.com'])).toBe(true);
    expect(await allowed('http://10.0.0.7:9000/hooks/a', ['http://10.0.0.7:9000/hooks/'])).toBe(true);
    expect(await allowed('http://localhost:8080/hook', ['*', '127.0.0.1:8080'])).toBe(false);
  });

  it('a name that does not resolve under a wildcard is the resolver’s error, for the caller to word', async () => {
    await expect(runWebhookRefusal('https://nowhere.example.com/x', anyPublic, dns)).rejects.toThrow('ENOTFOUND');
    // A named host is not resolved at all.
    expect(await allowed('https://nowhere.example.com/x', ['nowhere.example.com'])).toBe(true);
  });
});
