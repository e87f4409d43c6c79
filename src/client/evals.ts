import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { AGENT_LOOP_WORKFLOW, type AgentLoopInput, type AgentLoopResult } from '../contract/agent-loop';
import type { RunState } from '../contract/agent-loop';
import { EVAL_WORKFLOW, type EvalCase, type EvalInput, type EvalReport } from '../contract/eval/eval';
import { workflowSummary } from '../contract/goal-tree/text';
import { WAVELOOP_EVAL, WAVELOOP_STATUS } from '../contract/search-attributes';
import { recordEval, type EvalRecording } from './eval-recording';

/** Which runs `evals.exportCases` writes as cases. */
export interface ExportOptions {
  /** Runs that ended in this status (their `WaveloopStatus`; default `completed`). */
  status?: RunState;
  /** Runs started since this time. */
  since?: Date;
  /** Only the runs of this agent (`default` for runs that named none). */
  agent?: string;
  /** These runs (workflow ids) instead of a search. */
  from?: string[];
  /** The most runs a search takes (default 500). */
  limit?: number;
}

/**
 * Evals (`evalRun`): start one over a dataset's cases, wait for its report, make a dataset from the
 * runs production recorded, and read an eval's recorded model replies for a replay.
 * `WaveloopClient.evals`.
 */
export class EvalsClient {
  constructor(
    private readonly temporal: Client,
    private readonly taskQueue: string,
  ) {}

  /**
   * Starts an eval on `taskQueue` (default: this client's); its workflow id is `eval-<name>-<random>`
   * unless `workflowId` says. Its cases run as child runs tagged `WaveloopEval=<name>`.
   */
  async start(
    input: EvalInput,
    options: { workflowId?: string; taskQueue?: string } = {},
  ): Promise<WorkflowHandleWithFirstExecutionRunId> {
    if (input.cases.length === 0) throw new TypeError('An eval needs at least one case.');
    const slug = input.name.replace(/[^\w.-]+/g, '-').slice(0, 60);
    return this.temporal.workflow.start(EVAL_WORKFLOW, {
      taskQueue: options.taskQueue ?? this.taskQueue,
      workflowId: options.workflowId ?? `eval-${slug}-${randomUUID().slice(0, 8)}`,
      args: [input],
      staticSummary: workflowSummary(
        `${input.dryRun ? 'DRY RUN · ' : ''}eval ${input.name} · ${input.cases.length} cases`,
      ),
    });
  }

  /** Waits for the eval's report. */
  async result(workflowId: string): Promise<EvalReport> {
    return (await this.temporal.workflow.getHandle(workflowId).result()) as EvalReport;
  }

  /** The model replies and tool results of `report`'s cases, from their runs' histories (`--replay`). */
  async recording(report: EvalReport): Promise<EvalRecording> {
    return recordEval(this.temporal, report);
  }

  /**
   * Cases from runs that ended: each run's goal and agent, and as its expectation its typed output
   * (`output`) or else its answer (`equals`), newest first. `from` takes those runs; otherwise the
   * agent runs of this client's task queue in `status` since `since`, but evals' cases.
   */
  async exportCases(options: ExportOptions = {}): Promise<EvalCase[]> {
    const ids = options.from ?? (await this.search(options));
    const cases: EvalCase[] = [];
    for (const id of ids) {
      const found = await this.caseOf(id);
      if (options.agent && (found.agent ?? 'default') !== options.agent) continue;
      cases.push(found);
    }
    return cases;
  }

  private async search({ status = 'completed', since, limit = 500 }: ExportOptions): Promise<string[]> {
    const query = [
      `WorkflowType = '${AGENT_LOOP_WORKFLOW}'`,
      `TaskQueue = '${this.taskQueue.replace(/'/g, "\\'")}'`,
      `${WAVELOOP_STATUS.name} = '${status}'`,
      `${WAVELOOP_EVAL.name} IS NULL`,
      ...(since ? [`StartTime > '${since.toISOString()}'`] : []),
    ].join(' AND ');
    const ids = new Set<string>();
    for await (const run of this.temporal.workflow.list({ query })) {
      ids.add(run.workflowId);
      if (ids.size >= limit) break;
    }
    return [...ids];
  }

  /** A run as a case: its input's goal and agent (its first run's), its result as the expectation. */
  private async caseOf(workflowId: string): Promise<EvalCase> {
    const handle = this.temporal.workflow.getHandle(workflowId);
    const { firstRunId } = (await handle.describe()).raw.workflowExecutionInfo ?? {};
    const first = this.temporal.workflow.getHandle(workflowId, firstRunId ?? undefined);
    const started = (await first.fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes;
    const input = (await decodeFromPayloadsAtIndex(
      this.temporal.options.loadedDataConverter,
      0,
      started?.input?.payloads,
    )) as AgentLoopInput;
    const result = (await handle.result()) as AgentLoopResult;
    const expect: EvalCase['expect'] =
      result.output !== undefined ? { output: result.output } : { equals: result.answer };
    if (result.status !== 'completed') expect.status = result.status;
    return { goal: input.goal, expect, ...(input.agent ? { agent: input.agent } : {}) };
  }
}
