import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { waveloop } from '../support/cli';

const PRELOAD = path.join(__dirname, '..', 'support', 'loaded-packages.cjs');

/** The packages `waveloop <args>` loads before it exits. */
async function packagesLoadedBy(args: string[]): Promise<string[]> {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-startup-')), 'packages.txt');
  const { code, stderr } = await waveloop(args, { NODE_OPTIONS: `--require ${PRELOAD}`, LOADED_PACKAGES_OUT: out });
  expect(code, stderr).not.toBeNull();
  const packages = fs.readFileSync(out, 'utf8').split('\n');
  fs.rmSync(path.dirname(out), { recursive: true, force: true });
  return packages;
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
});
