import * as fs from 'node:fs';
import * as path from 'node:path';

/** The Temporal CLI release waveloop pins (`scripts/install-temporal.js` installs the same one). */
export const TEMPORAL_CLI_VERSION = '1.9.1';

const BINARY_NAME = process.platform === 'win32' ? 'temporal.exe' : 'temporal';

/**
 * The waveloop package root: the nearest directory above this file whose package.json is named
 * "waveloop". Works from the sources (vitest, tsx) and from the built `dist/`.
 */
export function packageRoot(from: string = __dirname): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      if (pkg.name === 'waveloop') return dir;
    } catch {
      // no package.json here (or not JSON): keep walking up
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * Where the `temporal` CLI is, or undefined when there is none. Looks, in order, at
 * `WAVELOOP_TEMPORAL_BIN` (used as given, even if the file is missing, so a typo fails loudly),
 * `<package root>/.tools/temporal/bin/temporal` (what `npm install` puts there), then `temporal` on PATH.
 */
export function findTemporalBinary(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromEnv = env.WAVELOOP_TEMPORAL_BIN?.trim();
  if (fromEnv) return path.resolve(fromEnv);

  const root = packageRoot();
  if (root) {
    const local = path.join(root, '.tools', 'temporal', 'bin', BINARY_NAME);
    if (isExecutable(local)) return local;
  }

  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, BINARY_NAME);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
