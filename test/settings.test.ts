import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TASK_QUEUE, loadSettings, modelConfigProblem } from '../src/settings';

describe('loadSettings', () => {
  it('loadSettings: WAVELOOP_STREAM streams replies unless it says false, 0, off or no (any case, blanks ignored)', () => {
    expect(loadSettings({}).model.stream).toBe(true);
    expect(loadSettings({ WAVELOOP_STREAM: ' ' }).model.stream).toBe(true);
    expect(loadSettings({ WAVELOOP_STREAM: 'true' }).model.stream).toBe(true);
    for (const off of ['false', '0', 'off', 'no', ' FALSE ', 'Off'])
      expect(loadSettings({ WAVELOOP_STREAM: off }).model.stream, off).toBe(false);
  });

  it('loadSettings: the model endpoint, task queue, server and data directory come from the environment; blank means unset', () => {
    const config = loadSettings({
      OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
      OPENAI_API_KEY: ' key ',
      WAVELOOP_MODEL: 'fake-model',
      WAVELOOP_TASK_QUEUE: '',
      TEMPORAL_ADDRESS: 'temporal:7233',
      WAVELOOP_DATA_DIR: 'some/dir',
    });
    expect(config.model).toMatchObject({ baseURL: 'http://127.0.0.1:1/v1', apiKey: 'key' });
    expect(config.defaults.model).toBe('fake-model');
    expect(config.taskQueue).toBe(DEFAULT_TASK_QUEUE);
    expect(config.temporalAddress).toBe('temporal:7233');
    expect(config.dataDir).toBe(path.resolve('some/dir'));
    expect(modelConfigProblem(config.model)).toBeUndefined();
    expect(modelConfigProblem(loadSettings({}).model)).toMatch(/^No model endpoint is configured/);
  });

  it('loadSettings: WAVELOOP_WEBHOOKS is one or more URLs, comma-separated, with the secret and the inbox; a bad one is refused, naming the variable and the URL', () => {
    expect(loadSettings({}).webhooks).toEqual({});
    const settings = loadSettings({
      WAVELOOP_WEBHOOKS: ' https://ops.example.com/hooks , slack:http://127.0.0.1:9999/x,',
      WAVELOOP_WEBHOOK_SECRET: ' s3cret ',
      WAVELOOP_INBOX_URL: 'http://127.0.0.1:8080',
    });
    expect(settings.defaults.webhooks).toEqual(['https://ops.example.com/hooks', 'slack:http://127.0.0.1:9999/x']);
    expect(settings.webhooks).toEqual({ secret: 's3cret', inboxUrl: 'http://127.0.0.1:8080' });
    expect(() => loadSettings({ WAVELOOP_WEBHOOKS: 'https://ok.example.com,ftp://files.example.com/x' })).toThrow(
      /WAVELOOP_WEBHOOKS.*http\(s\) URL.*ftp:\/\/files\.example\.com\/x/s,
    );
    expect(() => loadSettings({ WAVELOOP_WEBHOOKS: 'ops.example.com/hooks' })).toThrow(/WAVELOOP_WEBHOOKS/);
    expect(() => loadSettings({ WAVELOOP_INBOX_URL: 'localhost:8080' })).toThrow(/WAVELOOP_INBOX_URL.*http\(s\) URL/s);
  });

  it('loadSettings: WAVELOOP_SERVER_PORT moves the embedded server and its Web UI (port + 1000); a bad port is refused, naming the variable', () => {
    expect(loadSettings({}).embeddedServer).toEqual({ address: '127.0.0.1:7233', uiPort: 8233 });
    expect(loadSettings({ WAVELOOP_SERVER_PORT: '17233' }).embeddedServer).toEqual({
      address: '127.0.0.1:17233',
      uiPort: 18233,
    });
    for (const bad of ['0', '70000', 'x', '72.5'])
      expect(() => loadSettings({ WAVELOOP_SERVER_PORT: bad }), bad).toThrow(/WAVELOOP_SERVER_PORT/);
  });

  it("loadSettings: WAVELOOP_MODEL_TIMEOUT_SECONDS and WAVELOOP_MODEL_ATTEMPTS set the workers' model calls; malformed ones name the variable", () => {
    expect(loadSettings({}).defaults).not.toHaveProperty('modelTimeoutSeconds');
    expect(
      loadSettings({ WAVELOOP_MODEL_TIMEOUT_SECONDS: '1200', WAVELOOP_MODEL_ATTEMPTS: '3' }).defaults,
    ).toMatchObject({ modelTimeoutSeconds: 1_200, modelAttempts: 3 });
    expect(() => loadSettings({ WAVELOOP_MODEL_TIMEOUT_SECONDS: 'long' })).toThrow(/WAVELOOP_MODEL_TIMEOUT_SECONDS/);
    for (const bad of ['0', 'x', '2.5'])
      expect(() => loadSettings({ WAVELOOP_MODEL_ATTEMPTS: bad }), bad).toThrow(/WAVELOOP_MODEL_ATTEMPTS/);
  });

  it('loadSettings: a renamed variable is refused with the name that replaced it', () => {
    expect(() => loadSettings({ WAVELOOP_MODEL_TIMEOUT: '20m' })).toThrow(
      /WAVELOOP_MODEL_TIMEOUT.*`WAVELOOP_MODEL_TIMEOUT` is now WAVELOOP_MODEL_TIMEOUT_SECONDS/s,
    );
    expect(() => loadSettings({ WAVELOOP_WEBHOOK_URL: 'https://x.example' })).toThrow(/is now `WAVELOOP_WEBHOOKS`/);
  });

  it('loadSettings: WAVELOOP_MODEL_RPM and WAVELOOP_MODEL_TPM are positive rates; zero, negative or text names the variable', () => {
    expect(loadSettings({}).defaults).not.toHaveProperty('modelRpm');
    expect(loadSettings({ WAVELOOP_MODEL_RPM: '120', WAVELOOP_MODEL_TPM: '90000' }).defaults).toMatchObject({
      modelRpm: 120,
      modelTpm: 90_000,
    });
    expect(loadSettings({ WAVELOOP_MODEL_RPM: '0.5' }).defaults.modelRpm).toBe(0.5);
    for (const bad of ['0', '-5', 'many']) {
      expect(() => loadSettings({ WAVELOOP_MODEL_RPM: bad }), bad).toThrow(
        expect.objectContaining({
          issues: [
            expect.objectContaining({
              path: ['WAVELOOP_MODEL_RPM'],
              message: 'modelRpm must be a number more than 0 to 1,000,000,000',
            }),
          ],
        }),
      );
      expect(() => loadSettings({ WAVELOOP_MODEL_TPM: bad }), bad).toThrow(/WAVELOOP_MODEL_TPM/);
    }
  });

  it("loadSettings: each worker setting comes from its variable, named after it (WAVELOOP_ + the setting's name)", () => {
    const defaults = loadSettings({
      WAVELOOP_MODEL: 'llama3.1',
      WAVELOOP_MAX_PARALLEL_TOOLS: ' 8 ',
      WAVELOOP_WEBHOOKS: 'https://a.example/h, slack:https://hooks.slack.com/x',
    }).defaults;
    expect(defaults).toEqual({
      model: 'llama3.1',
      maxParallelTools: 8,
      webhooks: ['https://a.example/h', 'slack:https://hooks.slack.com/x'],
    });
    expect(loadSettings({}).defaults).toEqual({});
    for (const bad of ['0', '-1', 'x', '2.5', '1001'])
      expect(() => loadSettings({ WAVELOOP_MAX_PARALLEL_TOOLS: bad }), bad).toThrow(/WAVELOOP_MAX_PARALLEL_TOOLS/);
    expect(() => loadSettings({ WAVELOOP_WEBHOOKS: 'ftp://x' })).toThrow(/WAVELOOP_WEBHOOKS/);
  });

  it('loadSettings: WAVELOOP_SHUTDOWN_GRACE_SECONDS is how long a stopping worker lets calls finish (default 30); a malformed one names the variable', () => {
    expect(loadSettings({}).shutdownGraceSeconds).toBe(30);
    expect(loadSettings({ WAVELOOP_SHUTDOWN_GRACE_SECONDS: '45' }).shutdownGraceSeconds).toBe(45);
    expect(() => loadSettings({ WAVELOOP_SHUTDOWN_GRACE: '2m' })).toThrow(/is now WAVELOOP_SHUTDOWN_GRACE_SECONDS/);
    expect(() => loadSettings({ WAVELOOP_SHUTDOWN_GRACE_SECONDS: 'soon' })).toThrow(
      /WAVELOOP_SHUTDOWN_GRACE_SECONDS.*must be a number of seconds, such as 30, not .*soon/s,
    );
  });

  it('loadSettings: WAVELOOP_DEPLOYMENT and WAVELOOP_BUILD_ID name the Worker Deployment version of the workers, both or neither', () => {
    expect(loadSettings({}).deployment).toBeUndefined();
    expect(loadSettings({ WAVELOOP_DEPLOYMENT: ' ', WAVELOOP_BUILD_ID: '' }).deployment).toBeUndefined();
    expect(loadSettings({ WAVELOOP_DEPLOYMENT: 'billing', WAVELOOP_BUILD_ID: ' 2026-11-24.1 ' }).deployment).toEqual({
      name: 'billing',
      buildId: '2026-11-24.1',
    });
    expect(() => loadSettings({ WAVELOOP_DEPLOYMENT: 'billing' })).toThrow(
      /WAVELOOP_BUILD_ID.*must be set with WAVELOOP_DEPLOYMENT \(set both or neither\)/s,
    );
    expect(() => loadSettings({ WAVELOOP_BUILD_ID: 'v2' })).toThrow(
      /WAVELOOP_DEPLOYMENT.*must be set with WAVELOOP_BUILD_ID/s,
    );
  });
});
