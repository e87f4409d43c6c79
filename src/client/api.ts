import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { loadConfig, type WaveloopConfig } from '../common/config';
import {
  AGENT_LOOP_WORKFLOW,
  AgentLoopInputSchema,
  type AgentLoopInput,
  type AgentLoopResult,
  type ChatMessage,
  type RunProgress,
} from '../common/contract';
import { statusQuery, transcriptQuery } from '../workflows/messages';
import { connectClient } from './connection';

export interface StartOptions {
  /** Workflow id; default `waveloop-<random>`. Starting a second run with a running id fails. */
  workflowId?: string;
  /** Hard wall-clock limit of the run (the workflow execution timeout), e.g. '10m' or milliseconds. */
  timeout?: string | number;
}

export interface RunSummary {
  workflowId: string;
  runId: string;
  /** Temporal's status: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT, … */
  execution: string;
  startTime: Date;
  closeTime?: Date;
}

/** A run as `waveloop status` shows it: Temporal's view plus the workflow's own progress. */
export interface RunStatusReport extends RunSummary {
  progress?: RunProgress;
}

/**
 * The small typed client the CLI uses, and scripts can too: start runs, follow them, read their
 * status and transcript, cancel them. Input is validated here with the workflow's own schema, so a
 * mistake is reported before anything is started.
 */
export class WaveloopClient {
  constructor(
    readonly client: Client,
    readonly taskQueue: string,
  ) {}

  static async connect(config: WaveloopConfig = loadConfig()): Promise<WaveloopClient> {
    return new WaveloopClient(await connectClient(config), config.taskQueue);
  }

  async close(): Promise<void> {
    await this.client.connection.close();
  }

  /** Validates the input (throws a `ZodError` that says what is wrong) and starts an `agentLoop` run. */
  async start(input: AgentLoopInput, options: StartOptions = {}): Promise<WorkflowHandleWithFirstExecutionRunId> {
    const valid = AgentLoopInputSchema.parse(input);
    return this.client.workflow.start(AGENT_LOOP_WORKFLOW, {
      taskQueue: this.taskQueue,
      workflowId: options.workflowId ?? `waveloop-${randomUUID().slice(0, 8)}`,
      args: [valid],
      workflowExecutionTimeout: options.timeout as never,
      staticSummary: valid.goal.length > 200 ? `${valid.goal.slice(0, 199)}…` : valid.goal,
    });
  }

  handle(workflowId: string): WorkflowHandle {
    return this.client.workflow.getHandle(workflowId);
  }

  /** Waits for the run's end; a failed run throws `WorkflowFailedError` with the typed cause. */
  async result(workflowId: string): Promise<AgentLoopResult> {
    return (await this.handle(workflowId).result()) as AgentLoopResult;
  }

  async progress(workflowId: string): Promise<RunProgress> {
    return this.handle(workflowId).query(statusQuery);
  }

  async transcript(workflowId: string): Promise<ChatMessage[]> {
    return this.handle(workflowId).query(transcriptQuery);
  }

  /** Temporal's description of the run plus its progress (absent if no worker could answer the query). */
  async status(workflowId: string): Promise<RunStatusReport> {
    const description = await this.handle(workflowId).describe();
    let progress: RunProgress | undefined;
    try {
      progress = await this.progress(workflowId);
    } catch {
      progress = undefined;
    }
    return {
      workflowId: description.workflowId,
      runId: description.runId,
      execution: description.status.name,
      startTime: description.startTime,
      closeTime: description.closeTime,
      progress,
    };
  }

  /** Requests cancellation of the run. */
  async cancel(workflowId: string): Promise<void> {
    await this.handle(workflowId).cancel();
  }

  /** The latest `agentLoop` runs, newest first. */
  async list(limit = 20): Promise<RunSummary[]> {
    const runs: RunSummary[] = [];
    for await (const run of this.client.workflow.list({ query: `WorkflowType = '${AGENT_LOOP_WORKFLOW}'` })) {
      runs.push({
        workflowId: run.workflowId,
        runId: run.runId,
        execution: run.status.name,
        startTime: run.startTime,
        closeTime: run.closeTime,
      });
      if (runs.length >= limit) break;
    }
    return runs;
  }

  /** Whether a worker polled the task queue within `freshWithinMs`. */
  async hasLiveWorker(freshWithinMs = 10_000): Promise<boolean> {
    const response = await this.client.workflowService.describeTaskQueue({
      namespace: this.client.options.namespace,
      taskQueue: { name: this.taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    const now = Date.now();
    return (response.pollers ?? []).some((poller) => {
      const seconds = Number(poller.lastAccessTime?.seconds ?? 0);
      return now - seconds * 1000 < freshWithinMs;
    });
  }

  /** Whether the run's first workflow task is still waiting for a worker to pick it up. */
  async waitingForWorker(workflowId: string): Promise<boolean> {
    const { raw } = await this.handle(workflowId).describe();
    return raw.pendingWorkflowTask?.state === temporal.api.enums.v1.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED;
  }
}
