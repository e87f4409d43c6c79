import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/program';
import { STARTER_CONFIG_FILE } from '../../src/project/starter';

/** A command line's own streams (collected), environment and working directory. */
function commandLine(cwd: string, env: NodeJS.ProcessEnv = {}) {
  const out = { stdout: '', stderr: '' };
  const io = {
    stdout: { write: (text: string) => (out.stdout += text) },
    stderr: { write: (text: string) => (out.stderr += text) },
    env,
    cwd,
    interactive: false,
  };
  return { io, out };
}

describe('main(argv, io): command lines side by side in one process', () => {
  it('each writes its own output, reads its own environment and works in its own directory, not the process’s', async () => {
    const [first, second] = [1, 2].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-io-')));
    const a = commandLine(first!);
    const b = commandLine(second!, { WAVELOOP_CONFIG: 'missing.config.ts' });
    const before = process.cwd();

    const [initA, toolsB] = await Promise.all([
      main(['node', 'waveloop', 'init'], a.io),
      main(['node', 'waveloop', 'tools'], b.io),
    ]);

    expect(initA).toBe(0);
    expect(a.out.stdout).toContain(`Wrote ${STARTER_CONFIG_FILE}`);
    expect(a.out.stderr).toBe('');
    expect(fs.existsSync(path.join(first!, STARTER_CONFIG_FILE))).toBe(true);
    // The second command line's WAVELOOP_CONFIG, relative to its own directory; the file is missing.
    expect(toolsB).toBe(2);
    expect(b.out).toEqual({ stdout: '', stderr: 'missing.config.ts: no such file\n' });
    expect(fs.existsSync(path.join(second!, STARTER_CONFIG_FILE))).toBe(false);
    expect(process.cwd()).toBe(before);
    expect(fs.existsSync(path.join(before, STARTER_CONFIG_FILE))).toBe(false);
    for (const dir of [first!, second!]) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('commander’s own output (help, a mistake in the command line) goes to the command line’s streams too', async () => {
    const help = commandLine(os.tmpdir());
    expect(await main(['node', 'waveloop', 'status', '--help'], help.io)).toBe(0);
    expect(help.out.stdout).toMatch(/^Usage: waveloop status/);

    const wrong = commandLine(os.tmpdir());
    expect(await main(['node', 'waveloop', 'list', '--limit', 'none'], wrong.io)).toBe(2);
    expect(wrong.out.stderr).toContain("error: option '--limit <n>' argument 'none' is invalid.");
  });
});
