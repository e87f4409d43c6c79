import * as path from 'node:path';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteAuditStore } from '../../src/audit/sqlite-store';
import type { AuditStore } from '../../src/audit/store';
import { WaveloopClient } from '../../src/client/waveloop-client';
import type { AuditEntry, AuditRecord } from '../../src/contract/audit/records';
import { Harness, waitForProgress } from '../support/harness';
import { eventually } from '../support/wait';

/**
 * A decision the server refuses with the workflow task that took it: when an event comes in while
 * a workflow task completes the run, the server fails that task (UNHANDLED_COMMAND), drops the
 * updates it carried and answers them FAILED_PRECONDITION. The client sends the same decision again
 * and the run takes it once. Here the event is a signal, sent while the worker writes the run's
 * last audit record (a local activity, so the workflow task stays open until it is written).
 */

/** The worker's audit store, which holds the first `run_ended` record until `release()`. */
class HeldStore implements AuditStore {
  constructor(private readonly store: AuditStore) {}
  readonly where = 'held';
  private releaseHeld!: () => void;
  private readonly releasing = new Promise<void>((resolve) => (this.releaseHeld = resolve));
  held = false;

  async append(entry: AuditEntry): Promise<AuditRecord> {
    if (entry.kind === 'run_ended' && !this.held) {
      this.held = true;
      await this.releasing;
    }
    return this.store.append(entry);
  }
  release(): void {
    this.releaseHeld();
  }
  list = (...args: Parameters<AuditStore['list']>) => this.store.list(...args);
  all = () => this.store.all();
  close = () => this.store.close();
}

describe('a decision whose workflow task the server refuses', () => {
  const h = new Harness();
  let store: HeldStore;
  let stopWorker: () => Promise<void>;
  let client: WaveloopClient;

  beforeAll(async () => {
    await h.start();
    store = new HeldStore(new SqliteAuditStore(path.join(h.dataDir, 'audit.db')));
    const { worker, taskQueue } = await h.worker({ audit: store });
    const running = worker.run();
    stopWorker = async () => {
      worker.shutdown();
      await running;
    };
    client = new WaveloopClient(h.client, taskQueue);
  });
  afterAll(async () => {
    store?.release();
    await stopWorker?.();
    await store?.close();
    await h.stop();
  });

  it('end, refused with its workflow task because a signal came in as the run completed, is sent again: the run ends, and its history holds the decision once', async () => {
    h.fake.script({ content: 'Bob works at Acme.' });
    const workflowId = 'retried-end';
    await client.runs.start({ goal: 'Where does Bob work?', conversation: true }, { workflowId });
    const handle = h.client.workflow.getHandle(workflowId);
    await waitForProgress(h.client, handle, (p) => p.status === 'waiting_for_message');

    const ending = client.runs.end(workflowId);
    // The end is taken: the run writes its last record, which the store holds with the task open.
    await eventually(
      async () => store.held,
      (held) => held,
      { attempts: 300, intervalMs: 50 },
    );
    await handle.signal('an-event-while-it-completes');
    store.release();
    await ending;

    const result = await client.runs.result(workflowId);
    expect(result).toMatchObject({ status: 'completed', answer: 'Bob works at Acme.' });
    const { events } = await handle.fetchHistory();
    const EventType = temporal.api.enums.v1.EventType;
    const types = events!.map((e) => e.eventType);
    // The server refused the task that completed the run with the signal unread...
    const failed = events!.filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED);
    expect(failed.map((e) => e.workflowTaskFailedEventAttributes?.cause)).toEqual([
      temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND,
    ]);
    // ...and the end sent again was taken once, after it.
    expect(types.filter((t) => t === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)).toHaveLength(1);
    expect(types.indexOf(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED)).toBeGreaterThan(
      types.indexOf(EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED),
    );
    expect(types.at(-1)).toBe(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
  });
});
