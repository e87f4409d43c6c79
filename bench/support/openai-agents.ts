import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The sub-package with Temporal's own agent integration (its own package.json, lockfile and node_modules). */
export const AGENTS_DIR = path.join(__dirname, '..', '..', '..', 'bench', 'openai-agents');
const ROOT = path.join(AGENTS_DIR, '..', '..');

export interface AgentsOutcome {
  /** cpuMs: the integration's worker process's CPU time during the run. */
  results: Array<{ id: string; ok: boolean; ms: number; cpuMs: number; error?: string }>;
  rss: number;
}

/** The versions installed in the sub-package, for the report. */
export function agentsVersions(): Record<string, string> {
  const version = (name: string) => {
    try {
      return (
        JSON.parse(fs.readFileSync(path.join(AGENTS_DIR, 'node_modules', name, 'package.json'), 'utf8')) as {
          version: string;
        }
      ).version;
    } catch {
      return 'not installed';
    }
  };
  return Object.fromEntries(
    ['@temporalio/openai-agents', '@temporalio/worker', '@openai/agents-core', '@openai/agents-openai', 'openai'].map(
      (n) => [n, version(n)],
    ),
  );
}

/** Whether the sub-package's dependencies are installed (`prepareAgents` installs them when not). */
function agentsInstalled(): boolean {
  return fs.existsSync(path.join(AGENTS_DIR, 'node_modules', '@temporalio', 'openai-agents'));
}

/**
 * Installs the sub-package from its lockfile when its node_modules is missing, and
 * compiles it with the root's TypeScript. Returns why it cannot be used, or undefined when it can.
 */
export function prepareAgents(log: (line: string) => void): string | undefined {
  if (!agentsInstalled()) {
    // `npm ci` refuses this lockfile on npm 11 (it lacks other platforms' optional @swc/core
    // binaries); `npm install --no-save` installs the locked versions and leaves the lockfile alone.
    log('Installing bench/openai-agents (npm install --no-save)...');
    const install = spawnSync('npm', ['install', '--prefix', AGENTS_DIR, '--no-audit', '--no-fund', '--no-save'], {
      stdio: 'inherit',
    });
    if (install.status !== 0) return `npm install --prefix bench/openai-agents failed (exit ${install.status})`;
  }
  const tsc = spawnSync(
    path.join(ROOT, 'node_modules', '.bin', 'tsc'),
    ['-p', path.join(AGENTS_DIR, 'tsconfig.json')],
    { encoding: 'utf8' },
  );
  if (tsc.status !== 0) return `compiling bench/openai-agents failed: ${tsc.stdout}${tsc.stderr}`;
  return undefined;
}

/** Runs the given goals as `benchAgent` workflows of Temporal's integration, in a process of its own. */
export function runAgents(
  address: string,
  baseURL: string,
  runs: Array<{ id: string; goal: string; maxTurns: number }>,
  concurrent = false,
): Promise<AgentsOutcome> {
  const spec = { address, baseURL, taskQueue: `agents-${randomUUID()}`, runs, concurrent };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(AGENTS_DIR, 'dist', 'main.js'), JSON.stringify(spec)], {
      cwd: AGENTS_DIR,
      env: { ...process.env, OPENAI_AGENTS_DISABLE_TRACING: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code === 0 && last.startsWith('{')) resolve(JSON.parse(last) as AgentsOutcome);
      else reject(new Error(`the openai-agents worker exited with ${code}: ${err.slice(-2000)}`));
    });
  });
}
