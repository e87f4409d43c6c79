import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bundleWorkflowCode, type BundleOptions } from '@temporalio/worker';

/** Where built workflow bundles are kept between processes. */
const CACHE_DIR = path.join(os.tmpdir(), 'waveloop-workflow-bundles');

/** How many bundles the cache keeps: the most recently used (every build of waveloop is another). */
const KEPT_BUNDLES = 8;

/** The folder of waveloop's own sources: `dist/src` when built, `src` in tests. */
const SOURCES = path.join(__dirname, '..');

/**
 * The workflow bundle of `options`, built once and then read from a file: a worker that starts
 * (`waveloop run`'s own worker, `waveloop worker`) skips the seconds of bundling when an earlier
 * one built the same bundle. Its name is a hash of everything that goes into it: the options, the
 * Temporal SDK's version, and every source file of waveloop (any change to them is a new bundle).
 * The cache keeps the 8 bundles used last. Returns the bundle's path.
 */
export async function cachedWorkflowBundle(
  options: Pick<
    BundleOptions,
    'workflowsPath' | 'workflowInterceptorModules' | 'payloadConverterPath' | 'failureConverterPath'
  >,
): Promise<string> {
  const file = path.join(CACHE_DIR, `${bundleKey(options)}.js`);
  if (fs.existsSync(file)) {
    markUsed(file);
    return file;
  }
  const { code } = await bundleWorkflowCode({ ...options, logger: QUIET_BUNDLER_LOGGER });
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  // Written aside and renamed, so a worker starting at the same time reads a whole bundle or none.
  const partial = `${file}.${process.pid}.partial`;
  fs.writeFileSync(partial, code);
  fs.renameSync(partial, file);
  pruneBundles(CACHE_DIR, KEPT_BUNDLES);
  return file;
}

/** Records a use of `file` in its access time (its modification time stays when it was built). */
function markUsed(file: string): void {
  try {
    fs.utimesSync(file, new Date(), fs.statSync(file).mtime);
  } catch {
    // Another process pruned it just now: it is read or built again next time.
  }
}

/** Deletes the bundles in `dir` beyond the `keep` used last (one another process deleted meanwhile is skipped). */
export function pruneBundles(dir: string, keep: number): void {
  const bundles = fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.js'))
    .flatMap((name) => {
      const file = path.join(dir, name);
      const stats = fs.statSync(file, { throwIfNoEntry: false });
      return stats ? [{ file, usedAt: stats.atimeMs }] : [];
    })
    .sort((a, b) => b.usedAt - a.usedAt);
  for (const { file } of bundles.slice(keep)) fs.rmSync(file, { force: true });
}

/**
 * The bundle `createWorker` runs when it is given none: `src/workflows` with the data converter's
 * payload and failure converters and telemetry's workflow interceptors (`workflowModules`).
 */
export function cachedWorkerBundle(
  converter: Pick<BundleOptions, 'payloadConverterPath' | 'failureConverterPath'>,
  workflowModules: string[],
): Promise<string> {
  return cachedWorkflowBundle({
    workflowsPath: workflowsPath(),
    workflowInterceptorModules: workflowModules,
    payloadConverterPath: converter.payloadConverterPath,
    failureConverterPath: converter.failureConverterPath,
  });
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
const QUIET_BUNDLER_LOGGER = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (message: string) => console.error(message),
};

/**
 * The workflows' entry file: `index.js` when built, `index.ts` in the sources (tests). Looked up
 * by name: `require.resolve` finds a `.ts` file only where something has taught `require` the
 * extension, which in a test process depends on what ran before.
 */
function workflowsPath(): string {
  const dir = path.join(SOURCES, 'workflows');
  const file = ['index.js', 'index.ts']
    .map((name) => path.join(dir, name))
    .find((candidate) => fs.existsSync(candidate));
  return file ?? require.resolve('../workflows');
}
