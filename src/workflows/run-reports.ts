import type { ResolvedRun } from '../contract/activity-io';
import type { AgentLoopInput, AgentLoopResult, RunProgress } from '../contract/agent-loop';
import { AuditTrail, type AuditNote } from './audit-trail';
import type { StartingState } from './continuation';
import type { HumanGate } from './human-gate';
import { Notifier } from './notices';
import type { Publisher } from './publishing';
import { undoOnFailure } from './undo-saga';

/**
 * What a run tells beyond itself: its webhooks (`Notifier`: when it waits for a person, how it
 * ended) and its audit trail (`AuditTrail`: its start, each decision, each approved call, its end).
 * Both are told from the gate as people decide; both are settled before the run hands over or ends.
 */
export class RunReports {
  private readonly notifier: Notifier;
  private readonly audit: AuditTrail;
  private readonly progress: RunProgress;

  constructor(
    input: AgentLoopInput,
    private readonly run: ResolvedRun,
    { gate, state, publisher }: { gate: HumanGate; state: StartingState; publisher: Publisher },
  ) {
    const progress = (this.progress = publisher.progress);
    const { startedBy } = progress;
    this.notifier = new Notifier(run.settings.webhooks ?? [], input.goal, startedBy, input.webhooks);
    gate.onWait = (waiting) => this.notifier.waiting(waiting);
    // A store that does not take a record shows in the run's status and details until it does.
    this.audit = new AuditTrail(
      run.audit === true,
      (waiting) => {
        if (waiting) progress.auditWaiting = waiting;
        else delete progress.auditWaiting;
        publisher.describe();
      },
      input.goal,
    );
    gate.onDecision = this.audited;
    if (!state.handedOver)
      this.audit.record('started', {
        kind: 'run_started',
        at: progress.startedAt,
        person: startedBy,
        details: {
          goal: input.goal,
          agent: run.agent,
          model: run.settings.model,
          ...(state.forkedFrom ? { forkedFrom: state.forkedFrom } : {}),
        },
      });
  }

  /** Writes `note` to the audit trail once, under `key`: a decision, a call that waited for approval and ran. */
  readonly audited = (key: string, note: AuditNote): void => this.audit.record(key, note);

  /** Waits until every notice has its delivery started and every record is written: before a hand-over. */
  async settle(): Promise<void> {
    await this.notifier.settle();
    await this.audit.settle();
  }

  /**
   * The run ended with `result` (`cancelled` too): with `onFailure: 'undo'`, a failed end first undoes
   * what the run changed (`undoOnFailure`); its end is recorded and told, after every earlier record.
   */
  async ended(result: AgentLoopResult): Promise<void> {
    await undoOnFailure(this.run, this.progress, result.status);
    this.end(result.status, { iterations: result.iterations });
    await this.audit.settle();
    await this.notifier.ended(result);
  }

  /** The run failed with `err`: with `onFailure: 'undo'`, what it changed is undone first; recorded and told as `failed`. */
  async failed(err: unknown): Promise<void> {
    await undoOnFailure(this.run, this.progress, 'failed');
    this.end('failed', { error: err instanceof Error ? err.message : String(err) });
    await this.audit.settle();
    await this.notifier.failed(err);
  }

  private end(status: string, details: Record<string, unknown>): void {
    this.audit.record('ended', {
      kind: 'run_ended',
      at: new Date().toISOString(),
      person: this.progress.startedBy,
      details: { status, ...details },
    });
  }
}
