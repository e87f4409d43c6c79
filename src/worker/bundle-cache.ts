import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bundleWorkflowCode, type BundleOptions } from '@temporalio/worker';

/** Where built workflow bundles are kept between processes. */
const CACHE_DIR = path.join(os.tmpdir(), 'waveloop-workflow-bundles');

/** The folder of waveloop's own sources: `dist/src` when built, `src` in tests. */
const SOURCES = path.join(__dirname, '..');

/**
 * The workflow bundle of `options`, built once and then read from a file: a worker that starts
 * (`waveloop run`'s own worker, `waveloop worker`) skips the seconds of bundling when an earlier
 * one built the same bundle. Its name is a hash of everything that goes into it: the options, the
 * Temporal SDK's version, and every source file of waveloop (any change to them is a new bundle).
 * Returns the bundle's path.
 */
export async function cachedWorkflowBundle(options: Pick<BundleOptions, 'workflowsPath' | 'workflowInterceptorModules' | 'payloadConverterPath' | 'failureConverterPath'>): Promise<string> {
  const file = path.join(CACHE_DIR, `${bundleKey(options)}.js`);
  if (fs.existsSync(file)) return file;
  const { code } = await bundleWorkflowCode({ ...options, logger: QUIET_BUNDLER_LOGGER });
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  // Written aside and renamed, so a worker starting at the same time reads a whole bundle or none.
  const partial = `${file}.${process.pid}.partial`;
  fs.writeFileSync(partial, code);
  fs.renameSync(partial, file);
  return file;
}

function bundleKey(options: object): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(options));
  hash.update(fs.readFileSync(require.resolve('@temporalio/worker/package.json')));
  for (const file of sourceFiles(SOURCES)) {
    hash.update(file);
    hash.update(fs.readFileSync(file));
  }
  return hash.digest('hex').slice(0, 32);
}

function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(full);
      return /\.(ts|js|cjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
    })
    .sort();
}

/** The bundler's log without webpack's progress: only its errors are printed (and still throw). */
export const QUIET_BUNDLER_LOGGER = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (message: string) => console.error(message),
};
