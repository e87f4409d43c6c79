import { describe, expect, it } from 'vitest';
import { Registry } from '../../src/activities';
import { createResolveRun } from '../../src/activities/resolve-run';
import { defineAgent } from '../../src/agents/define';
import { builtinTools } from '../../src/tools';

const resolve = (allow: string[] | undefined, addresses: Record<string, string[]> = {}) =>
  createResolveRun({
    registry: new Registry(builtinTools(), [defineAgent({ name: 'default', system: 'You help.' })]),
    defaults: { model: 'm', webhooks: ['http://127.0.0.1:9999/operator'] },
    now: () => new Date('2026-11-22T10:00:00Z'),
    webhooks: allow === undefined ? undefined : { allow },
    resolveHost: async (host) => {
      if (!addresses[host]) throw new Error(`getaddrinfo ENOTFOUND ${host}`);
      return addresses[host];
    },
  });

describe('resolveRun: the webhooks a run names (a raw client’s start)', () => {
  it('without WAVELOOP_WEBHOOK_ALLOW, a run naming a webhook is refused (InvalidInput, not retried), naming the URL and the variable', async () => {
    await expect(resolve(undefined)({ goal: 'x', webhooks: ['https://hooks.example.com/x'] })).rejects.toMatchObject({
      type: 'InvalidInput',
      nonRetryable: true,
      message: expect.stringMatching(
        /^The webhook https:\/\/hooks\.example\.com\/x is refused: .*WAVELOOP_WEBHOOK_ALLOW/,
      ),
    });
  });

  it.each([
    'http://169.254.169.254/latest/meta-data',
    'http://[::ffff:169.254.169.254]/',
    'http://localhost:8080/hook',
    'http://127.0.0.1:8080/hook',
    'https://inside.example.com/hook',
  ])('under *, %s is refused: it points at a non-public address', async (url) => {
    const run = resolve(['*'], { 'inside.example.com': ['10.0.0.7'] })({ goal: 'x', webhooks: [url] });
    await expect(run).rejects.toMatchObject({
      type: 'InvalidInput',
      nonRetryable: true,
      message: expect.stringContaining(`The webhook ${url} is refused: it points at a`),
    });
  });

  it('a host that does not resolve cannot be checked: refused', async () => {
    await expect(resolve(['*'])({ goal: 'x', webhooks: ['https://nowhere.example.com/x'] })).rejects.toMatchObject({
      type: 'InvalidInput',
      message: expect.stringContaining('its host does not resolve'),
    });
  });

  it('what the list allows resolves, with the worker’s URLs, which are never checked', async () => {
    const run = await resolve(['127.0.0.1:8080', '*'], { 'hooks.example.com': ['93.184.216.34'] })({
      goal: 'x',
      webhooks: ['http://127.0.0.1:8080/hook', 'https://hooks.example.com/x'],
    });
    expect(run.settings.webhooks).toEqual([
      'http://127.0.0.1:8080/hook',
      'https://hooks.example.com/x',
      'http://127.0.0.1:9999/operator',
    ]);
    expect(await resolve(undefined)({ goal: 'x' })).toMatchObject({
      settings: { webhooks: ['http://127.0.0.1:9999/operator'] },
    });
  });
});
