import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliFixture, waveloop, waveloopLive } from '../support/cli';
import { eventually } from '../support/wait';

const PRELOAD = path.join(__dirname, '..', 'support', 'loaded-packages.cjs');

/** Where a process preloaded with `loaded-packages.cjs` writes what it loaded, and the reading of it. */
function packagesFile(): { env: Record<string, string>; read(): string[] } {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-startup-')), 'packages.txt');
  return {
    env: { NODE_OPTIONS: `--require ${PRELOAD}`, LOADED_PACKAGES_OUT: out },
    read() {
      const packages = fs.readFileSync(out, 'utf8').split('\n');
      fs.rmSync(path.dirname(out), { recursive: true, force: true });
      return packages;
    },
  };
}

/** The packages `waveloop <args>` loads before it exits. */
async function packagesLoadedBy(args: string[]): Promise<string[]> {
  const loaded = packagesFile();
  const { code, stderr } = await waveloop(args, loaded.env);
  expect(code, stderr).not.toBeNull();
  return loaded.read();
}

describe('CLI start-up', () => {
  it('a command that runs no worker (yet) loads neither the worker packages nor MCP, OpenTelemetry, the model client, the config loader or the HTTP server', async () => {
    // Refused while the options are read: the whole program is built, no server is asked, and
    // `run` loads its worker only once it knows it needs one.
    for (const args of [
      ['list', '--limit', '0'],
      ['status', '--help'],
      ['run', '--max-iterations', '0', 'x'],
    ]) {
      const packages = await packagesLoadedBy(args);
      expect(packages, args.join(' ')).toContain('@temporalio/client');
      for (const heavy of [
        '@temporalio/worker',
        '@modelcontextprotocol/sdk',
        '@opentelemetry/sdk-trace-base',
        'openai',
        'jiti',
        'hono',
      ]) {
        expect(packages, `${args.join(' ')} loads ${heavy}`).not.toContain(heavy);
      }
    }
  });

  it('a worker without tracing does not load OpenTelemetry', async () => {
    const cli = await cliFixture('startup', { worker: false });
    try {
      const loaded = packagesFile();
      const worker = waveloopLive(['worker'], { ...cli.env, ...loaded.env, WAVELOOP_LOG_LEVEL: 'INFO' });
      await eventually(worker.stderr, (said) => said.includes('Worker polling'), {
        attempts: 900,
        problem: 'The worker never polled.',
      });
      worker.kill('SIGTERM');
      expect((await worker.done).code).toBe(0);
      const packages = loaded.read();
      expect(packages).toContain('@temporalio/worker');
      expect(packages).not.toContain('@opentelemetry/sdk-trace-base');
      expect(packages).not.toContain('@temporalio/interceptors-opentelemetry');
    } finally {
      await cli.stop();
    }
  });
});
