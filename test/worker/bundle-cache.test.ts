import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect, it } from 'vitest';
import { cachedWorkflowBundle, pruneBundles } from '../../src/worker/bundle-cache';

it(
  'cachedWorkflowBundle: one bundle for the same inputs, built once and then read back',
  { timeout: 60_000 },
  async () => {
    const options = { workflowsPath: path.join(__dirname, '..', '..', 'src', 'workflows', 'index.ts') };
    const first = await cachedWorkflowBundle(options);
    // A bundle built again is written aside and renamed over the old one: a new inode.
    const built = fs.statSync(first).ino;
    expect(fs.readFileSync(first, 'utf8')).toContain('agentLoop');
    const second = await cachedWorkflowBundle(options);
    expect(second).toBe(first);
    expect(fs.statSync(second).ino).toBe(built);
    // Other inputs (here the failure converter) are another bundle.
    const other = await cachedWorkflowBundle({
      ...options,
      failureConverterPath: path.join(__dirname, '..', '..', 'src', 'payloads', 'encoded-failures.cjs'),
    });
    expect(other).not.toBe(first);
  },
);

it('pruneBundles: keeps the bundles used last and deletes the rest; bundles being written, or deleted meanwhile, are left alone', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-bundles-'));
  const usedAt = (i: number) => new Date(Date.UTC(2026, 0, 1 + i));
  for (let i = 0; i < 10; i++) {
    fs.writeFileSync(path.join(dir, `b${i}.js`), '');
    fs.utimesSync(path.join(dir, `b${i}.js`), usedAt(i), usedAt(0));
  }
  fs.writeFileSync(path.join(dir, 'b10.js.123.partial'), '');
  // Listed, but gone by the time it is looked at (as when another process pruned it): skipped.
  fs.symlinkSync(path.join(dir, 'deleted.js'), path.join(dir, 'gone.js'));
  pruneBundles(dir, 8);
  expect(fs.readdirSync(dir).sort()).toEqual([
    'b10.js.123.partial',
    'b2.js',
    'b3.js',
    'b4.js',
    'b5.js',
    'b6.js',
    'b7.js',
    'b8.js',
    'b9.js',
    'gone.js',
  ]);
  fs.rmSync(dir, { recursive: true, force: true });
});
