import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  ActivityFailure,
  CancellationScope,
  ChildWorkflowCancellationType,
  condition,
  ParentClosePolicy,
  proxyActivities,
  proxyLocalActivities,
  startChild,
  WorkflowIdReusePolicy,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type { AuditWaiting } from '../contract/agent-loop';
import type { AuditEntry, RecordAuditOutput } from '../contract/audit/records';
import { deliverWebhooks } from './deliver-webhooks';

type Activities = ReturnType<typeof createActivities>;

// A write takes milliseconds: an attempt whose worker died is tried again soon.
const startToCloseTimeout = '10 seconds';
/**
 * A record's first attempts, a few seconds in all: a store that answers again soon is not worth
 * telling. A local activity, run by the worker that runs the workflow task and recorded with it: no
 * task for the server to hand out, and no workflow task of its own when it completes.
 */
const { recordAudit } = proxyLocalActivities<Activities>({
  startToCloseTimeout,
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
});
/**
 * Then, once the run says it waits for the store: a full or unreachable store never loses a record.
 * An activity any worker may take (one with a store, if this one has none), retried until written.
 */
const { recordAudit: recordAuditUntilTaken } = proxyActivities<Activities>({
  startToCloseTimeout,
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** What a run tells its audit trail: a record without its id and run, which the trail adds. */
export type AuditNote = Omit<AuditEntry, 'id' | 'workflowId'>;

/**
 * A run's audit trail (docs/audit.md): each record is written by a `recordAudit` local activity,
 * one after the other in the order the run told them, without holding the loop back. Each carries
 * an id made of the run's chain and `key`, the same on every replay and retry, so a worker killed
 * at any point writes it once. The writes are scheduled by one writer started with the run (so
 * they belong to the run's trace, even a decision told from an update's handler), and are not
 * cancelled with the run, so a cancelled run's records are written too. A run waits for its
 * records before it hands over or ends (`settle`).
 */
export class AuditTrail {
  private readonly queue: AuditEntry[] = [];
  private writing = false;
  private readonly workflowId: string;
  private readonly chain: string;

  /**
   * `on`: whether the run keeps a trail (`ResolvedRun.audit`). `waiting` is told when the store has
   * not taken a record after its first attempts (the run then waits for it, and says so), and told
   * `undefined` once it has.
   */
  constructor(
    private readonly on: boolean,
    private readonly waiting: (waiting: AuditWaiting | undefined) => void = () => {},
    private readonly goal = '',
  ) {
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
      const written = await this.writeOne(this.queue[0]!);
      if (written.webhooks?.length) await this.sendCopies(written);
      this.queue.shift();
      this.writing = false;
    }
  }

  private async writeOne(entry: AuditEntry): Promise<RecordAuditOutput> {
    try {
      return await recordAudit({ entry });
    } catch (err) {
      const error = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
      this.waiting({ since: new Date().toISOString(), record: entry.id, error });
      const written = await recordAuditUntilTaken({ entry });
      this.waiting(undefined);
      return written;
    }
  }

  /**
   * Sends a copy of the record to the worker's audit webhooks (a SIEM) through a `deliverWebhooks`
   * child, as the run's notices go: it outlives the run, its id is the record's (so a copy is sent
   * at most once), and the writer goes on once it has started.
   */
  private async sendCopies({ record, webhooks }: RecordAuditOutput): Promise<void> {
    const deliveryId = `audit:${record.id}`;
    const notice = {
      event: 'audit' as const,
      workflowId: this.workflowId,
      runId: workflowInfo().runId,
      goal: this.goal,
      at: record.at,
      record,
    };
    await startChild(deliverWebhooks, {
      workflowId: deliveryId,
      args: [{ deliveryId, urls: webhooks!, notice }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      cancellationType: ChildWorkflowCancellationType.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      staticSummary: `webhook · audit ${record.kind}`,
    }).catch((err: unknown) => {
      // Started already (by the attempt before a worker died): its copy is on its way.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    });
  }
}
