import { setCurrentDetails, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { RunProgress } from '../contract/agent-loop';
import { approveCommandLine, denyCommandLine } from '../contract/command-lines';
import type { UndoInput } from '../contract/effects/undo';
import { statusQuery } from '../contract/messages';
import { ZERO_USAGE } from '../contract/model/usage';
import { WAVELOOP_STATUS } from '../contract/search-attributes';
import { maskArgs } from '../contract/sensitive';

/**
 * What the world sees of an undo (`undoRun`) while it goes, in the shape of a run's progress, so
 * that `waveloop pending`, the inbox and the decision commands find the approvals it waits for as
 * they find a run's: the `status` query (its `pendingApprovals`, arguments of sensitive parameters
 * masked), its `WaveloopStatus` search attribute (`running`, `waiting_for_approval`, then
 * `completed`), when the namespace has it, and its current details (the command that decides what
 * it waits for). `startedBy` is who asked for the undo: four eyes keeps them from approving it.
 */
export class UndoProgress {
  readonly progress: RunProgress;
  /** Whether the namespace has waveloop's search attributes (`undoSetup` says). */
  searchAttributes = false;
  private published = '';
  private readonly sensitive: Map<string, string[]>;
  private readonly workflowId = workflowInfo().workflowId;

  constructor(private readonly input: UndoInput) {
    this.progress = {
      status: 'running',
      iteration: 0,
      maxIterations: 0,
      phase: 'tools',
      agent: input.agent ?? '',
      model: '',
      waves: [],
      usage: ZERO_USAGE,
      pendingQuestions: [],
      pendingApprovals: [],
      startedBy: input.by,
      startedAt: workflowInfo().startTime.toISOString(),
    };
    this.sensitive = new Map(input.calls.flatMap((call) => (call.sensitive ? [[call.tool, call.sensitive]] : [])));
    setHandler(statusQuery, () => this.shown());
    this.publish();
  }

  /** Sets the current details and, when it changed, the `WaveloopStatus` search attribute. */
  publish(): void {
    setCurrentDetails(this.details());
    const { status } = this.progress;
    if (!this.searchAttributes || status === this.published) return;
    this.published = status;
    upsertSearchAttributes([{ key: WAVELOOP_STATUS, value: status }]);
  }

  /** The undo has finished: nothing waits, and its status says `completed`. */
  finish(): void {
    Object.assign(this.progress, { status: 'completed', phase: 'done', pendingApprovals: [] });
    this.publish();
  }

  private details(): string {
    const head = `**Undo of \`${this.input.workflowId}\`** · asked by ${this.input.by}`;
    const waits = this.progress.pendingApprovals.map(
      (call) =>
        `Waiting for approval of the undo of ${call.tool} (${call.callId}, iteration ${call.iteration}): ` +
        `\`${approveCommandLine(this.workflowId, call.callId)}\` or \`${denyCommandLine(this.workflowId, call.callId)}\``,
    );
    return [head, ...waits].join('\n\n');
  }

  private shown(): RunProgress {
    if (!this.sensitive.size) return this.progress;
    return {
      ...this.progress,
      pendingApprovals: this.progress.pendingApprovals.map((call) => ({
        ...call,
        args: maskArgs(call.args, this.sensitive.get(call.tool)),
        ...(call.originalArgs ? { originalArgs: maskArgs(call.originalArgs, this.sensitive.get(call.tool)) } : {}),
      })),
    };
  }
}
