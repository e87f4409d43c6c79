import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  CancellationScope,
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  startChild,
  WorkflowIdReusePolicy,
  workflowInfo,
} from '@temporalio/workflow';
import {
  clipText,
  NOTICE_OUTPUT_CHARS,
  type WebhookEvent,
  type WebhookNotice,
  type WebhookPending,
} from '../contract/webhooks/webhooks';
import { deliverWebhooks } from './deliver-webhooks';

/** What a run waits for, as its gate tells it: the event, what waits and, for a conversation, the turn's message. */
export interface Waiting {
  event: Extract<WebhookEvent, `waiting_for_${string}`>;
  /** Tells this wait from the run's others: `<iteration>:<callId>`, or the iteration of a conversation's turn. */
  key: string;
  pending?: WebhookPending;
  message?: string;
}

/**
 * The run's webhooks (docs/webhooks.md): each notice goes out through a `deliverWebhooks` child
 * that the run starts and does not wait for (parent close policy ABANDON, so it outlives the run;
 * cancellation ABANDON, so cancelling the run leaves it be). Its workflow id, which is also the
 * delivery id the receiver sees, names the run's chain (its first run id), the event and what
 * waits, and a second start of the same id is refused (REJECT_DUPLICATE): a notice is told at most
 * once, across worker restarts, replays and hand-overs. The run waits only for its children to have
 * started, and only before it hands over or ends (`settle`), since a child not yet started when its
 * parent closes would never start.
 */
export class Notifier {
  private readonly starting: Array<Promise<void>> = [];

  /** The URLs of `urls` that the run's own input named: checked again as they are posted. */
  private readonly runNamed: string[];

  constructor(
    private readonly urls: readonly string[],
    private readonly goal: string,
    /** Who started the run, told with every notice. */
    private readonly startedBy?: string,
    /** The webhooks of the run's (or the goal tree's) own input, as given. */
    named: readonly string[] = [],
  ) {
    const given = new Set(named.map((url) => url.trim()));
    this.runNamed = urls.filter((url) => given.has(url.trim()));
  }

  /** The run waits for a person. */
  waiting({ event, key, pending, message }: Waiting): void {
    this.tell({ event, ...(pending ? { pending } : {}), ...(message ? { answer: clipText(message) } : {}) }, key);
  }

  /**
   * The run ended with `result`: `completed` (its status says how), `cancelled`, or `failed` (a goal
   * tree whose result is `failed`). A goal tree's tool loop tells nothing (its tree does).
   */
  async ended(result: { status: string; answer: string; output?: unknown }): Promise<void> {
    if (!workflowInfo().parent) {
      const event = result.status === 'cancelled' || result.status === 'failed' ? result.status : 'completed';
      this.tell({ event, status: result.status, answer: clipText(result.answer), ...shortOutput(result.output) });
    }
    await this.settle();
  }

  /** The run failed with `err`. A goal tree's tool loop tells nothing (its tree does). */
  async failed(err: unknown): Promise<void> {
    if (!workflowInfo().parent)
      this.tell({
        event: 'failed',
        status: 'failed',
        error: clipText(err instanceof Error ? err.message : String(err)),
      });
    await this.settle();
  }

  /** Waits until every notice told so far has its delivery started: before the run hands over or ends. */
  async settle(): Promise<void> {
    await Promise.all(this.starting.splice(0));
  }

  private tell(told: Omit<WebhookNotice, 'workflowId' | 'runId' | 'goal' | 'at' | 'root'>, key?: string): void {
    if (this.urls.length === 0) return;
    const { workflowId, runId, firstExecutionRunId, parent, root } = workflowInfo();
    const notice: WebhookNotice = {
      ...told,
      workflowId,
      runId,
      goal: clipText(this.goal),
      ...(this.startedBy ? { startedBy: this.startedBy } : {}),
      ...(parent && root && root.workflowId !== workflowId ? { root: { workflowId: root.workflowId } } : {}),
      at: new Date().toISOString(),
    };
    const deliveryId = `${workflowId}/webhook/${told.event}${key ? `/${key}` : ''}@${firstExecutionRunId}`;
    const started = CancellationScope.nonCancellable(() =>
      startChild(deliverWebhooks, {
        workflowId: deliveryId,
        args: [
          { deliveryId, urls: [...this.urls], notice, ...(this.runNamed.length ? { runNamed: this.runNamed } : {}) },
        ],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        cancellationType: ChildWorkflowCancellationType.ABANDON,
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        staticSummary: `webhook · ${told.event}`,
      }),
    );
    this.starting.push(
      started.then(
        () => undefined,
        (err: unknown) => {
          // Told before (the same id): at most once.
          if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        },
      ),
    );
  }
}

/** The typed output, when its JSON is short enough for a notice. */
function shortOutput(output: unknown): { output?: unknown } {
  if (output === undefined) return {};
  return JSON.stringify(output).length <= NOTICE_OUTPUT_CHARS ? { output } : {};
}
