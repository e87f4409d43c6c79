import {
  WorkflowFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
  type WorkflowHandle,
  type WorkflowHandleWithFirstExecutionRunId,
} from '@temporalio/client';
import { ApplicationFailure, type Priority } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import {
  AGENT_LOOP_WORKFLOW,
  AgentLoopInputSchema,
  WAITING_STATES,
  type AgentLoopInput,
  type AgentLoopResult,
  type ChatMessage,
  type RunProgress,
} from '../contract/agent-loop';
import { outcomeUpdate, type OutcomeChoice, type OutcomeSettled } from '../contract/effects/outcome';
import { setPriority, withPriority } from '../contract/flow/priority';
import type { ForkInput } from '../contract/fork/schema';
import {
  answerUpdate,
  approveUpdate,
  denyUpdate,
  endUpdate,
  sendUpdate,
  statusQuery,
  transcriptQuery,
  type ApprovalOutcome,
} from '../contract/messages';
import { locateIteration } from '../temporal/fork-point';
import { queryWithRetry } from '../temporal/query';
import { deliverUpdate } from '../temporal/update';
import { followRun, type Follower, type FollowOptions } from './follow';
import { hasLiveWorker } from './live-worker';
import { readModelCall, type ModelCallState } from './model-call';
import { NoWorkerError } from './no-worker-error';
import { pendingOf, type PendingDecision, type PendingList } from './pending';
import { readPersonUpdates, type PersonUpdate } from './person-updates';
import { waitUntilClosed } from './run-closed';
import { GOAL_MEMO, listRuns, listRunsPage, type ListedRun, type ListOptions, type RunPage } from './run-list';
import { startGoalWorkflow } from './start-workflow';

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
  /** The goal the run (or goal tree) was started with, from its memo. */
  goal?: string;
  /** The Priority the run was started with (`priority`, `fairnessKey`, `fairnessWeight`), when it has one. */
  priority?: Priority;
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
 * Options of the decisions (`runs.answer`, `approve`, `deny`, `send`, `end`). A decision is an
 * update, which only a worker can accept: when no worker polls the run's task queue, the decision
 * is refused with a `NoWorkerError` and nothing is sent. When a worker polled a moment ago (one that
 * has just stopped still counts for `LIVE_POLLER_WINDOW_MS`), the decision is sent and waits at most
 * `waitSeconds` for a worker to take it; then it is a `NoWorkerError` with `sent: true`.
 */
export interface DecisionOptions {
  /** How long to wait for a worker to take the decision, in seconds (default 15). */
  waitSeconds?: number;
}

/** How long a decision waits for a worker to take it, by default. */
const DECISION_WAIT_SECONDS = 15;

/** Options of `runs.result`. */
export interface ResultOptions {
  /** Stops waiting when it aborts: the result rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** How many runs `runs.pending` asks what they wait for at once. */
const PENDING_QUERY_CONCURRENCY = 8;

/** Options of `runs.progress` and `runs.transcript`. */
export interface QueryOptions {
  /** Ask once or twice with a short deadline (for polling loops, and runs that may have no worker). */
  quick?: boolean;
}

/**
 * Agent runs (`agentLoop`): start them, follow them, read their status and transcript, decide what
 * they wait for, cancel them, list them. Input is validated here with the workflow's own schema, so
 * a mistake is reported before anything is started. `WaveloopClient.runs`.
 */
export class RunsClient {
  /** Who starts runs and decides through this client: its `identity`, else the Temporal client's. */
  private readonly identity: string;

  constructor(
    private readonly temporal: Client,
    private readonly taskQueue: string,
    identity?: string,
  ) {
    this.identity = identity ?? temporal.options.identity;
  }

  /** Validates the input (throws a `ZodError` that says what is wrong) and starts an `agentLoop` run. */
  async start(input: AgentLoopInput, options: StartOptions = {}): Promise<WorkflowHandleWithFirstExecutionRunId> {
    const valid = AgentLoopInputSchema.parse({ ...input, startedBy: input.startedBy ?? this.identity });
    const start = { taskQueue: this.taskQueue, idPrefix: 'waveloop', goal: valid.goal, ...options };
    return startGoalWorkflow(this.temporal, AGENT_LOOP_WORKFLOW, valid, start);
  }

  /**
   * Starts a run forked from run `source.workflowId` at iteration `source.iteration`: it starts from
   * the source's transcript up to and including that iteration's tool results (no tool runs again),
   * after `source.message` when given. Its input is the source run's, with `overrides` (an agent, a
   * model, a system prompt…) in place of the source's. Checks first, from the source's history, that
   * the run exists and reached that iteration: otherwise throws `ForkRefusedError` and starts nothing.
   */
  async fork(
    source: ForkInput,
    overrides: Partial<Omit<AgentLoopInput, 'fork'>> = {},
    options: StartOptions = {},
  ): Promise<WorkflowHandleWithFirstExecutionRunId> {
    const { input, run } = await locateIteration(this.temporal, source);
    // The fork is started by whoever forks it, not by the source's starter.
    const { fork: _sourceFork, startedBy: _sourceStarter, ...inherited } = input;
    const given = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
    return this.start({ ...inherited, ...given, fork: { ...source, runId: run.runId } }, options);
  }

  /** Temporal's handle of the run (or of any workflow). */
  handle(workflowId: string): WorkflowHandle {
    return this.temporal.workflow.getHandle(workflowId);
  }

  /**
   * Waits for the run's end; a failed run throws `WorkflowFailedError` with the typed cause. With
   * `signal`, stops waiting when it aborts (and throws its reason). `O` types the result's `output`
   * (`AgentOutput<typeof agent>` for a run of an agent with a zod `output`): the worker checked the
   * answer against the run's schema; this method only names the type, it checks nothing.
   */
  async result<O = unknown>(workflowId: string, { signal }: ResultOptions = {}): Promise<AgentLoopResult<O>> {
    if (signal) await waitUntilClosed(this.temporal, workflowId, signal);
    return (await this.handle(workflowId).result()) as AgentLoopResult<O>;
  }

  /** The `status` query; `quick` asks once with a 2 s deadline (for polling loops). */
  async progress(workflowId: string, { quick = false }: QueryOptions = {}): Promise<RunProgress> {
    const deadline = quick ? { attempts: 1, deadlineMs: 2_000 } : {};
    return queryWithRetry(this.temporal, this.handle(workflowId), statusQuery, deadline);
  }

  /** The run's messages; `quick` gives up after two short attempts (for runs that may have no worker). */
  async transcript(workflowId: string, { quick = false }: QueryOptions = {}): Promise<ChatMessage[]> {
    const deadline = quick ? { attempts: 2, deadlineMs: 3_000 } : {};
    return queryWithRetry(this.temporal, this.handle(workflowId), transcriptQuery, deadline);
  }

  /**
   * The run's model call in flight, as the server's pending activity tells it: its attempt (of how
   * many), why the attempt before failed (a timeout, the endpoint's error), and its reply so far
   * (as the model activity's last heartbeat carried it). Undefined when no model call is in flight.
   */
  async modelCall(workflowId: string): Promise<ModelCallState | undefined> {
    return readModelCall(this.temporal, workflowId);
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
      ...(typeof description.memo?.[GOAL_MEMO] === 'string' ? { goal: description.memo[GOAL_MEMO] } : {}),
      ...withPriority(setPriority(description.priority)),
    };
    if (description.status.name === 'RUNNING') {
      const deadline = { attempts: 2, deadlineMs: 3_000 };
      report.progress = await queryWithRetry(this.temporal, this.handle(workflowId), statusQuery, deadline).catch(
        () => undefined,
      );
      return report;
    }
    try {
      report.result = await this.result(workflowId);
    } catch (err) {
      const cause = err instanceof WorkflowFailedError ? err.cause : err;
      const typed = cause instanceof ApplicationFailure && cause.type;
      report.failure = typed ? `${cause.type}: ${cause.message}` : String((cause as Error)?.message ?? cause);
    }
    return report;
  }

  /**
   * Follows the run live: `options.onEvent` gets what the model says, each call as it settles and
   * what waits for a person, until `stop()` (see `followRun`).
   */
  follow(workflowId: string, options: FollowOptions): Follower {
    return followRun(this, workflowId, options);
  }

  /**
   * Answers the question the run waits on; rejected (WorkflowUpdateFailedError) unless it waits.
   * Like every decision, it needs a worker: see `DecisionOptions`.
   */
  async answer(
    workflowId: string,
    text: string,
    options: DecisionOptions = {},
  ): Promise<{ callId: string; question: string }> {
    return this.decide(workflowId, options, (run, updateId) =>
      run.executeUpdate(answerUpdate, { args: [text], updateId }),
    );
  }

  /**
   * Approves a call waiting for approval; it starts once its quorum is met (`decided: 'approved'`),
   * with `args` instead of the model's arguments when given. Edited arguments that do not suit the
   * tool, and a decision `by` someone who may not make it, are refused (WorkflowUpdateFailedError
   * saying why) and the call keeps waiting. The decision is recorded as made `by` the given name,
   * else the client's identity.
   */
  async approve(
    workflowId: string,
    callId: string,
    { by, args, ...options }: { by?: string; args?: Record<string, unknown> } & DecisionOptions = {},
  ): Promise<ApprovalOutcome> {
    const decision = { by: this.decider(by), ...(args ? { args } : {}) };
    return this.decide(workflowId, options, (run, updateId) =>
      run.executeUpdate(approveUpdate, { args: [callId, decision], updateId }),
    );
  }

  /** Denies a call waiting for approval; the model sees `denied: <reason>`. Recorded as made `by` the given name, else the client's identity. */
  async deny(
    workflowId: string,
    callId: string,
    { reason = '', by, ...options }: { reason?: string; by?: string } & DecisionOptions = {},
  ): Promise<ApprovalOutcome> {
    const decision = { by: this.decider(by) };
    return this.decide(workflowId, options, (run, updateId) =>
      run.executeUpdate(denyUpdate, { args: [callId, reason, decision], updateId }),
    );
  }

  /**
   * Settles a `write` call that may or may not have run (docs/effects.md#unknown-outcomes): it
   * `happened` (the call completes with `result`), run it `again`, or `give_up`. A decision `by`
   * someone not among the call's approvers is refused (WorkflowUpdateFailedError), and the call waits on.
   */
  async settleOutcome(
    workflowId: string,
    callId: string,
    { choice, result, by, ...options }: { choice: OutcomeChoice; result?: string; by?: string } & DecisionOptions,
  ): Promise<OutcomeSettled> {
    const decision = { choice, by: this.decider(by), ...(result !== undefined ? { result } : {}) };
    return this.decide(workflowId, options, (run, updateId) =>
      run.executeUpdate(outcomeUpdate, { args: [callId, decision], updateId }),
    );
  }

  /** Who decides: `by`, else the identity the client connected with; an empty name is refused. */
  private decider(by: string | undefined): string {
    if (by !== undefined && by.trim() === '') throw new TypeError('by: the name of who decides must not be empty.');
    return by?.trim() ?? this.identity;
  }

  /** Sends the next message of a conversation. */
  async send(workflowId: string, text: string, options: DecisionOptions = {}): Promise<void> {
    await this.decide(workflowId, options, (run, updateId) =>
      run.executeUpdate(sendUpdate, { args: [text], updateId }),
    );
  }

  /** Ends a conversation; the run completes with the model's last message. */
  async end(workflowId: string, options: DecisionOptions = {}): Promise<void> {
    await this.decide(workflowId, options, (run, updateId) => run.executeUpdate(endUpdate, { args: [], updateId }));
  }

  /**
   * Sends a decision (`update`) to a running run, unless no worker polls its task queue
   * (`NoWorkerError`, nothing sent), and waits at most `waitSeconds` for a worker to take it
   * (`NoWorkerError` with `sent`). On a run that has ended, the update fails as Temporal says.
   */
  private async decide<T>(
    workflowId: string,
    { waitSeconds = DECISION_WAIT_SECONDS }: DecisionOptions,
    update: (run: WorkflowHandle, updateId: string) => Promise<T>,
  ): Promise<T> {
    const handle = this.handle(workflowId);
    const description = await handle.describe();
    const running = description.status.name === 'RUNNING';
    if (running && !(await hasLiveWorker(this.temporal, description.taskQueue)))
      throw new NoWorkerError(workflowId, description.taskQueue);
    const deadline = Date.now() + waitSeconds * 1000;
    try {
      return await this.temporal.withDeadline(deadline, () =>
        deliverUpdate((updateId) => update(handle, updateId), deadline),
      );
    } catch (err) {
      if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError && Date.now() >= deadline)
        throw new NoWorkerError(workflowId, description.taskQueue, waitSeconds * 1000);
      throw err;
    }
  }

  /** What people told the run (answers, approvals, denials, messages), with who sent each, oldest first. */
  async decisions(workflowId: string): Promise<PersonUpdate[]> {
    return readPersonUpdates(this.temporal, workflowId);
  }

  /** Requests cancellation of the run. */
  async cancel(workflowId: string): Promise<void> {
    await this.handle(workflowId).cancel();
  }

  /**
   * The newest runs first: agent runs and goal trees (their roots; a tree's sub-goals are in
   * `goals.tree`), each with its own status and goal.
   */
  async list(options: ListOptions = {}): Promise<ListedRun[]> {
    return listRuns(this.temporal, options);
  }

  /**
   * One page of the list, newest first: at most `limit` runs (default 20), from where the `cursor`
   * of the page before left off. A cursor of another list (other filters) or mistyped is a
   * `TypeError`. The last page has no `cursor`.
   */
  async listPage(options: Omit<ListOptions, 'limit'> & { limit?: number; cursor?: string } = {}): Promise<RunPage> {
    return listRunsPage(this.temporal, options);
  }

  /**
   * Every decision waiting for a person, across all agent runs (a goal tree's tool loops too) and
   * the undos of runs (`undo:<run>`, docs/effects.md#undo-approvals):
   * approvals, questions and conversations, oldest first, each with the command that decides it.
   * The runs come from Temporal's visibility store (their `WaveloopStatus`); what each waits for,
   * from its `status` query, a few runs at a time.
   */
  async pending(): Promise<PendingList> {
    const waiting = await listRuns(this.temporal, { status: WAITING_STATES, limit: Number.POSITIVE_INFINITY });
    const decisions: PendingDecision[] = [];
    const unanswered: string[] = [];
    for (let i = 0; i < waiting.length; i += PENDING_QUERY_CONCURRENCY) {
      await Promise.all(
        waiting.slice(i, i + PENDING_QUERY_CONCURRENCY).map(async (run) => {
          const progress = await this.progress(run.workflowId, { quick: true }).catch(() => undefined);
          if (progress) decisions.push(...pendingOf(run, progress));
          else unanswered.push(run.workflowId);
        }),
      );
    }
    decisions.sort((a, b) => a.waitingSince.localeCompare(b.waitingSince));
    return { decisions, unanswered };
  }

  /**
   * Whether no worker has completed a workflow task of the run yet: its first task is still
   * scheduled, or was handed to a poll of a worker that has since gone (and will time out).
   */
  async waitingForWorker(workflowId: string): Promise<boolean> {
    const history = await this.handle(workflowId).fetchHistory();
    const { EventType } = temporal.api.enums.v1;
    const completed = EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED;
    const closed = [
      EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
      EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
      EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
      EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
      EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
    ];
    return !(history.events ?? []).some((event) => event.eventType === completed || closed.includes(event.eventType!));
  }
}
