import { CancellationScope, condition, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type { AuditEntry } from '../contract/audit/records';

const { recordAudit } = proxyActivities<ReturnType<typeof createActivities>>({
  // A write takes milliseconds: an attempt whose worker died is tried again soon.
  startToCloseTimeout: '10 seconds',
  // A full or unreachable store never loses a record: the write is tried until it succeeds.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** What a run tells its audit trail: a record without its id and run, which the trail adds. */
export type AuditNote = Omit<AuditEntry, 'id' | 'workflowId'>;

/**
 * A run's audit trail (docs/audit.md): each record is written by a `recordAudit` activity, one after
 * the other in the order the run told them, without holding the loop back. Each carries an id made
 * of the run's chain and `key`, the same on every replay and retry, so a worker killed at any point
 * writes it once. The writes are scheduled by one writer started with the run (so they belong to the
 * run's trace, even a decision told from an update's handler), and are not cancelled with the run,
 * so a cancelled run's records are written too. A run waits for its records before it hands over or
 * ends (`settle`).
 */
export class AuditTrail {
  private readonly queue: AuditEntry[] = [];
  private writing = false;
  private readonly workflowId: string;
  private readonly chain: string;

  constructor(private readonly on: boolean) {
    const info = workflowInfo();
    this.workflowId = info.workflowId;
    this.chain = info.firstExecutionRunId;
    if (on) void CancellationScope.nonCancellable(() => this.write());
  }

  /** Writes `note` once, under `key` (unique within the run's chain). */
  record(key: string, note: AuditNote): void {
    if (!this.on) return;
    this.queue.push({ ...note, id: `${this.workflowId}/${key}@${this.chain}`, workflowId: this.workflowId });
  }

  /** Waits until every record told so far is written (a cancelled run too: the wait is not cancelled). */
  async settle(): Promise<void> {
    if (this.on)
      await CancellationScope.nonCancellable(() => condition(() => this.queue.length === 0 && !this.writing));
  }

  /** The writer: each record as it comes, in order, each write retried until it succeeds. */
  private async write(): Promise<never> {
    for (;;) {
      await condition(() => this.queue.length > 0);
      this.writing = true;
      await recordAudit({ entry: this.queue[0]! });
      this.queue.shift();
      this.writing = false;
    }
  }
}
