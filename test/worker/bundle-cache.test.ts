import * as fs from 'node:fs';
import { expect, it } from 'vitest';
import { cachedWorkflowBundle } from '../../src/worker/bundle-cache';

it('cachedWorkflowBundle: one bundle for the same inputs, built once and then read back', { timeout: 60_000 }, async () => {
  const options = { workflowsPath: require.resolve('../../src/workflows') };
  const first = await cachedWorkflowBundle(options);
  const builtAt = fs.statSync(first).mtimeMs;
  expect(fs.readFileSync(first, 'utf8')).toContain('agentLoop');
  const second = await cachedWorkflowBundle(options);
  expect(second).toBe(first);
  expect(fs.statSync(second).mtimeMs).toBe(builtAt);
  // Other inputs (here the failure converter) are another bundle.
  const other = await cachedWorkflowBundle({ ...options, failureConverterPath: require.resolve('../../src/payloads/encoded-failures.cjs') });
  expect(other).not.toBe(first);
});
