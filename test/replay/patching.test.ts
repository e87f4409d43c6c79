import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import type { History } from '@temporalio/common/lib/proto-utils';

/**
 * How to change workflow code while runs are in flight after the first release (docs/development.md): a change that adds,
 * removes or reorders commands is wrapped in `patched('<id>')`. This records a history with the old
 * code and replays it against the guarded and the unguarded new code.
 */
const version = (file: string) => bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'patching', file), logger: quiet });
const quiet = { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe('upgrades', () => {
  let client: Client;
  let history: History;

  beforeAll(async () => {
    const address = inject('temporalAddress');
    client = new Client({ connection: await Connection.connect({ address }) });
    const connection = await NativeConnection.connect({ address });
    const taskQueue = `patching-${randomUUID()}`;
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: await version('v1.ts'),
      activities: { step: async (name: string) => name },
    });
    history = await worker.runUntil(async () => {
      const handle = await client.workflow.start('upgradeDemo', { taskQueue, workflowId: `patching-${randomUUID()}` });
      expect(await handle.result()).toBe('answer');
      return handle.fetchHistory();
    });
    await connection.close();
  });
  afterAll(() => client?.connection.close());

  it('upgrades: a history recorded before a change guarded by patched() replays after it', async () => {
    await expect(Worker.runReplayHistory({ workflowBundle: await version('v2-guarded.ts') }, history)).resolves.toBeUndefined();
  });

  it('upgrades: the same change without the guard breaks the recorded run (the replay test would fail CI)', async () => {
    await expect(Worker.runReplayHistory({ workflowBundle: await version('v2-unguarded.ts') }, history)).rejects.toThrow(/[Nn]ondeterminis|DeterminismViolation/);
  });
});
