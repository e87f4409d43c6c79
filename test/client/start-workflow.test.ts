import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { startGoalWorkflow } from '../../src/client/start-workflow';

/** A Temporal client that records the options of the workflows it is asked to start. */
function recordingClient() {
  const started: Array<Record<string, unknown>> = [];
  const temporal = {
    workflow: { start: async (_type: string, options: Record<string, unknown>) => started.push(options) },
  };
  return { temporal: temporal as unknown as Client, started };
}

describe('startGoalWorkflow', () => {
  it("startGoalWorkflow: the input's priority fields become the workflow's Priority (its workflow tasks are placed too) and its memo's (for waveloop list)", async () => {
    const { temporal, started } = recordingClient();
    const start = { taskQueue: 'q', idPrefix: 'waveloop', goal: 'g' };
    await startGoalWorkflow(temporal, 'agentLoop', { priority: 1, fairnessKey: 'acme', fairnessWeight: 3 }, start);
    await startGoalWorkflow(temporal, 'agentLoop', { fairnessKey: 'globex' }, start);
    await startGoalWorkflow(temporal, 'agentLoop', {}, start);
    expect(started.map((options) => options.priority)).toEqual([
      { priorityKey: 1, fairnessKey: 'acme', fairnessWeight: 3 },
      { fairnessKey: 'globex' },
      undefined,
    ]);
    expect(started.map((options) => options.memo)).toEqual([
      { goal: 'g', priority: { priorityKey: 1, fairnessKey: 'acme', fairnessWeight: 3 } },
      { goal: 'g', priority: { fairnessKey: 'globex' } },
      { goal: 'g' },
    ]);
  });
});
