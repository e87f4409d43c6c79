import type { MetricMeter, MetricTags } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveUpdate } from '../../src/contract/messages';
import { watchApprovals } from '../../src/telemetry/approvals-gauge';
import { Harness, waitForProgress } from '../support/harness';
import { eventually } from '../support/wait';

const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

/** A metric meter that only keeps what its gauges were set to, last value first. */
function recordingMeter() {
  const values: Array<{ name: string; value: number; tags?: MetricTags }> = [];
  const meter = {
    createGauge: (name: string) => ({
      set: (value: number, tags?: MetricTags) => values.unshift({ name, value, tags }),
    }),
  } as unknown as MetricMeter;
  return { meter, last: () => values[0] };
}

describe('waveloop_runs_waiting_for_approval', () => {
  it('counts the runs of the task queue that wait for an approval, as the server sees them', async () => {
    const bob = h.db.prepare("SELECT id FROM users WHERE name LIKE 'Bob%'").get() as { id: number };
    h.fake.script(
      { toolCalls: [{ name: 'update_user', args: { id: bob.id, company: 'Initech' } }] },
      { content: 'Done.' },
    );
    const { worker, taskQueue } = await h.worker();
    const { meter, last } = recordingMeter();
    const gauge = watchApprovals({
      client: h.client,
      namespace: 'default',
      taskQueue,
      meter,
      searchAttributes: async () => true,
      everyMs: 100,
    });
    try {
      await worker.runUntil(async () => {
        await eventually(last, (set) => set?.value === 0);
        expect(last()).toEqual({
          name: 'waveloop_runs_waiting_for_approval',
          value: 0,
          tags: { namespace: 'default', taskQueue },
        });

        const handle = await h.client.workflow.start('agentLoop', {
          taskQueue,
          workflowId: `gauge-${taskQueue}`,
          args: [{ goal: 'Move Bob to Initech', agent: 'back-office' }],
        });
        const waiting = await waitForProgress(h.client, handle, (p) => p.pendingApprovals.length === 1);
        await eventually(last, (set) => set.value === 1, { problem: 'The waiting run was never counted.' });

        await handle.executeUpdate(approveUpdate, { args: [waiting.pendingApprovals[0].callId] });
        await handle.result();
        await eventually(last, (set) => set.value === 0, { problem: 'The run was still counted after its approval.' });
      });
    } finally {
      gauge.stop();
    }
  });

  it('reports nothing without the search attributes', async () => {
    const { meter, last } = recordingMeter();
    let asked = 0;
    const gauge = watchApprovals({
      client: h.client,
      namespace: 'default',
      taskQueue: 'no-attributes',
      meter,
      searchAttributes: async () => (asked++, false),
      everyMs: 50,
    });
    await eventually(
      () => asked,
      (n) => n >= 3,
    );
    gauge.stop();
    expect(last()).toBeUndefined();
  });
});
