import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, type Client, type WorkflowHandle, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { temporal } from '@temporalio/proto';
import { loadSettings, type WaveloopSettings } from '../settings';
import { WAVELOOP_SEARCH_ATTRIBUTES } from '../contract/search-attributes';
import { isStreamedText, type StreamedText } from '../contract/streaming';
import {
  AGENT_LOOP_WORKFLOW,
  AgentLoopInputSchema,
  type AgentLoopInput,
  type AgentLoopResult,
  type ChatMessage,
  type RunProgress,
} from '../contract/agent-loop';
import { workflowSummary } from '../contract/goal-tree/text';
import type { GoalResult, GoalTreeInput } from '../contract/goal-tree/pursue-goal';
import { answerUpdate, approveUpdate, denyUpdate, endUpdate, sendUpdate, statusQuery, transcriptQuery } from '../contract/messages';
import { connectClient } from '../temporal/connection';
import { startGoalTree, type GoalStartOptions } from './goal-api';
import { readGoalTree, type GoalTreeNode } from './goal-tree';
import { describeFailure } from '../temporal/pending-activity';
import { queryWithRetry } from '../temporal/query';
import { GOAL_MEMO, listRuns, type ListedRun, type RunState } from './run-list';

/**
 * How recently a worker must have polled to count as live: the window the Temporal server itself
 * uses to tell whether a poller is still there (70 s in its matching service, "a little over the
 * max time a poller should be kept waiting": a long poll lasts up to a minute). The server lists a
 * poller for 5 minutes after its last poll, so a listed poller alone does not make a live worker.
 */
export const LIVE_POLLER_WINDOW_MS = 70_000;

export interface StartOptions {
  /** Workflow id; default `waveloop-<random>`. Starting a second run with a running id fails. */
  workflowId?: string;
  /** Hard wall-clock limit of the run (the workflow execution timeout), e.g. '10m' or milliseconds. */
  timeout?: string | number;
}

export interface RunSummary {
  workflowId: string;
  runId: string;
  /** `agentLoop` (an agent run, a goal tree's executing sub-goals included) or `pursueGoal` (a goal tree's root). */
  workflowType: string;
  /** Temporal's status: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT, … */
  execution: string;
  startTime: Date;
  closeTime?: Date;
}

/**
 * A run as `waveloop status` shows it: Temporal's view plus the workflow's own progress (from the
 * `status` query while it runs; from its result once it completed, so no worker is needed then).
 */
export interface RunStatusReport extends RunSummary {
  progress?: RunProgress;
  result?: AgentLoopResult;
  /** Why the run failed, when it did. */
  failure?: string;
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

  static async connect(config: WaveloopSettings = loadSettings()): Promise<WaveloopClient> {
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
      staticSummary: workflowSummary(valid.goal),
      memo: { [GOAL_MEMO]: workflowSummary(valid.goal) },
    });
  }

  handle(workflowId: string): WorkflowHandle {
    return this.client.workflow.getHandle(workflowId);
  }

  /** Waits for the run's end; a failed run throws `WorkflowFailedError` with the typed cause. */
  async result(workflowId: string): Promise<AgentLoopResult> {
    return (await this.handle(workflowId).result()) as AgentLoopResult;
  }

  /** The `status` query; `quick` asks once with a 2 s deadline (for polling loops). */
  async progress(workflowId: string, { quick = false } = {}): Promise<RunProgress> {
    return queryWithRetry(this.client, this.handle(workflowId), statusQuery, quick ? { attempts: 1, deadlineMs: 2_000 } : {});
  }

  /** The run's messages; `quick` gives up after two short attempts (for runs that may have no worker). */
  async transcript(workflowId: string, { quick = false } = {}): Promise<ChatMessage[]> {
    return queryWithRetry(this.client, this.handle(workflowId), transcriptQuery, quick ? { attempts: 2, deadlineMs: 3_000 } : {});
  }

  /**
   * The model's reply of the current iteration while it is being generated: the text so far, as the
   * model activity's last heartbeat carried it (Temporal's pending-activity state, not the history).
   * Undefined when no model call is in flight, or it has not streamed any text yet.
   */
  async streaming(workflowId: string): Promise<StreamedText | undefined> {
    return (await this.modelCall(workflowId))?.stream;
  }

  /**
   * The run's model call in flight, as the server's pending activity tells it: its attempt (of how
   * many), why the attempt before failed (a timeout, the endpoint's error), and its reply so far.
   */
  async modelCall(workflowId: string): Promise<ModelCallState | undefined> {
    const { raw } = await this.handle(workflowId).describe();
    const call = (raw.pendingActivities ?? []).find((activity) => activity.activityType?.name === 'callModel');
    if (!call) return undefined;
    const payloads = call.heartbeatDetails?.payloads;
    const details = payloads?.length ? await decodeFromPayloadsAtIndex(this.client.options.loadedDataConverter, 0, payloads) : undefined;
    return {
      attempt: call.attempt ?? 1,
      ...(call.maximumAttempts ? { maximumAttempts: call.maximumAttempts } : {}),
      ...(call.lastFailure ? { lastFailure: describeFailure(call.lastFailure) } : {}),
      ...(isStreamedText(details) ? { stream: details } : {}),
    };
  }

  /** Temporal's description of the run plus its progress (absent if no worker could answer the query). */
  async status(workflowId: string): Promise<RunStatusReport> {
    const description = await this.handle(workflowId).describe();
    const report: RunStatusReport = {
      workflowId: description.workflowId,
      runId: description.runId,
      workflowType: description.type,
      execution: description.status.name,
      startTime: description.startTime,
      closeTime: description.closeTime,
    };
    if (description.status.name === 'RUNNING') {
      report.progress = await queryWithRetry(this.client, this.handle(workflowId), statusQuery, { attempts: 2, deadlineMs: 3_000 }).catch(
        () => undefined,
      );
      return report;
    }
    try {
      report.result = await this.result(workflowId);
    } catch (err) {
      const cause = err instanceof WorkflowFailedError ? err.cause : err;
      report.failure = cause instanceof ApplicationFailure && cause.type ? `${cause.type}: ${cause.message}` : String((cause as Error)?.message ?? cause);
    }
    return report;
  }

  /** Validates the input and starts a goal tree (`pursueGoal`); see `startGoalTree`. */
  async startGoal(input: GoalTreeInput, options: GoalStartOptions = {}): Promise<WorkflowHandleWithFirstExecutionRunId> {
    return startGoalTree(this.client, this.taskQueue, input, options);
  }

  /** Waits for a goal tree's end and returns the root's result. */
  async goalResult(workflowId: string): Promise<GoalResult> {
    return (await this.handle(workflowId).result()) as GoalResult;
  }

  /** The goal tree rooted at `workflowId`, read from the workflow histories (`goalEvents(tree)` gives its log). */
  async goalTree(workflowId: string, cache?: Parameters<typeof readGoalTree>[2]): Promise<GoalTreeNode> {
    return readGoalTree(this.client, workflowId, cache);
  }

  /** Answers the question the run waits on; rejected (WorkflowUpdateFailedError) unless it waits. */
  async answer(workflowId: string, text: string): Promise<{ callId: string; question: string }> {
    return this.handle(workflowId).executeUpdate(answerUpdate, { args: [text] });
  }

  /** Approves a call waiting for approval; it starts at once. */
  async approve(workflowId: string, callId: string): Promise<{ callId: string; tool: string }> {
    return this.handle(workflowId).executeUpdate(approveUpdate, { args: [callId] });
  }

  /** Denies a call waiting for approval; the model sees `denied: <reason>`. */
  async deny(workflowId: string, callId: string, reason = ''): Promise<{ callId: string; tool: string }> {
    return this.handle(workflowId).executeUpdate(denyUpdate, { args: [callId, reason] });
  }

  /** Sends the next message of a conversation. */
  async send(workflowId: string, text: string): Promise<void> {
    await this.handle(workflowId).executeUpdate(sendUpdate, { args: [text] });
  }

  /** Ends a conversation; the run completes with the model's last message. */
  async end(workflowId: string): Promise<void> {
    await this.handle(workflowId).executeUpdate(endUpdate, { args: [] });
  }

  /** Requests cancellation of the run. */
  async cancel(workflowId: string): Promise<void> {
    await this.handle(workflowId).cancel();
  }

  /**
   * The newest runs first: agent runs and goal trees (their roots; a tree's sub-goals are in
   * `waveloop tree`), each with its own status and goal. `status` keeps agent runs in that status only.
   */
  async list(limit = 20, status?: RunState, schedule?: string): Promise<ListedRun[]> {
    return listRuns(this.client, limit, status, schedule);
  }

  /**
   * Registers waveloop's search attributes on the namespace (`waveloop setup`); returns the ones it
   * added. Temporal Cloud manages them with its own tools (tcld / the Cloud UI) instead.
   */
  async setupSearchAttributes(): Promise<string[]> {
    const namespace = this.client.options.namespace;
    const { customAttributes } = await this.client.connection.operatorService.listSearchAttributes({ namespace });
    const missing = WAVELOOP_SEARCH_ATTRIBUTES.filter((key) => customAttributes?.[key.name] === undefined);
    if (missing.length === 0) return [];
    const IndexedValueType = temporal.api.enums.v1.IndexedValueType;
    await this.client.connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(
        missing.map((key) => [key.name, key.type === 'KEYWORD' ? IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD : IndexedValueType.INDEXED_VALUE_TYPE_INT]),
      ),
    });
    return missing.map((key) => key.name);
  }

  /**
   * Whether a worker polls `taskQueue` (default: this client's) for workflow tasks: the task queue's
   * pollers as the server lists them (DescribeTaskQueue), one of them seen within
   * `LIVE_POLLER_WINDOW_MS`. An idle worker keeps one long poll open for up to a minute, and the
   * server records a poll when it starts and when it ends, so a live worker's last access is at most
   * about a minute old. A worker that has stopped still counts until the window has passed (`run`
   * then starts its own once its run has waited a few seconds for a worker).
   */
  async hasLiveWorker(taskQueue = this.taskQueue): Promise<boolean> {
    const response = await this.client.workflowService.describeTaskQueue({
      namespace: this.client.options.namespace,
      taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    const now = Date.now();
    return (response.pollers ?? []).some((poller) => {
      const seen = Number(poller.lastAccessTime?.seconds ?? 0) * 1000 + Math.floor((poller.lastAccessTime?.nanos ?? 0) / 1e6);
      return now - seen < LIVE_POLLER_WINDOW_MS;
    });
  }

  /**
   * Whether no worker has completed a workflow task of the run yet: its first task is still
   * scheduled, or was handed to a poll of a worker that has since gone (and will time out).
   */
  async waitingForWorker(workflowId: string): Promise<boolean> {
    const history = await this.handle(workflowId).fetchHistory();
    const completed = temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED;
    const closed = [
      temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
      temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
      temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
      temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
      temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
    ];
    return !(history.events ?? []).some((event) => event.eventType === completed || closed.includes(event.eventType!));
  }
}

/** A run's model call in flight (`WaveloopClient.modelCall`). */
export interface ModelCallState {
  attempt: number;
  /** The attempts the call has in all (absent: unlimited). */
  maximumAttempts?: number;
  /** Why the attempt before this one failed: `timed out (start-to-close)`, or the failure's message. */
  lastFailure?: string;
  /** The reply so far, while it streams. */
  stream?: StreamedText;
}
