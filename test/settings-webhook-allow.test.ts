import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { loadSettings } from '../src/settings';

describe('loadSettings: WAVELOOP_WEBHOOK_ALLOW', () => {
  it('hosts, URL prefixes and wildcards, comma-separated, become webhooks.allow; unset: none', () => {
    expect(
      loadSettings({
        WAVELOOP_WEBHOOK_ALLOW: ' hooks.example.com, https://ops.example.com/waveloop/ ,127.0.0.1:9000,*.corp.example,',
      }).webhooks.allow,
    ).toEqual(['hooks.example.com', 'https://ops.example.com/waveloop/', '127.0.0.1:9000', '*.corp.example']);
    expect(loadSettings({}).webhooks).not.toHaveProperty('allow');
  });

  it('an entry that is none stops the worker with a ZodError naming the variable and the entry', () => {
    let error: unknown;
    try {
      loadSettings({ WAVELOOP_WEBHOOK_ALLOW: 'hooks.example.com,ftp://files.example.com/' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ZodError);
    expect((error as ZodError).issues).toMatchObject([
      {
        path: ['WAVELOOP_WEBHOOK_ALLOW', 1],
        message: expect.stringContaining('"ftp://files.example.com/" is not a host'),
      },
    ]);
  });
});
