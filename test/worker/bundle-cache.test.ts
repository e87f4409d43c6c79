import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, it } from 'vitest';
import { cachedWorkflowBundle } from '../../src/worker/bundle-cache';

it('cachedWorkflowBundle: one bundle for the same inputs, built once and then read back', { timeout: 60_000 }, async () => {
  const options = { workflowsPath: path.join(__dirname, '..', '..', 'src', 'workflows', 'index.ts') };
  const first = await cachedWorkflowBundle(options);
  const builtAt = fs.statSync(first).mtimeMs;
  expect(fs.readFileSync(first, 'utf8')).toContain('agentLoop');
  const second = await cachedWorkflowBundle(options);
  expect(second).toBe(first);
  expect(fs.statSync(second).mtimeMs).toBe(builtAt);
  // Other inputs (here the failure converter) are another bundle.
  const other = await cachedWorkflowBundle({ ...options, failureConverterPath: path.join(__dirname, '..', '..', 'src', 'payloads', 'encoded-failures.cjs') });
  expect(other).not.toBe(first);
});
