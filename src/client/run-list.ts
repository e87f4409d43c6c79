import { createHash } from 'node:crypto';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers';
import type { Priority } from '@temporalio/common';
import { AGENT_LOOP_WORKFLOW, RUN_STATUSES, WAITING_STATES, type RunState } from '../contract/agent-loop';
import { DRY_RUN_MEMO } from '../contract/effects/dry-run';
import { UNDO_WORKFLOW } from '../contract/effects/undo';
import { setPriority, withPriority } from '../contract/flow/priority';
import { FORKED_FROM_MEMO, type ForkedFrom } from '../contract/fork/fork';
import { PURSUE_GOAL_WORKFLOW } from '../contract/goal-tree/defaults';
import { UNKNOWN_PERSON } from '../contract/people/approvals';
import { WAVELOOP_EVAL, WAVELOOP_STATUS } from '../contract/search-attributes';

/**
 * The runs `waveloop list` shows: agent runs and goal trees, newest first, from Temporal's
 * visibility store, each with its own status and its goal.
 */

/** The memo field of who started a run or a goal tree (`startedBy`), as `waveloop` starts them. */
export const STARTED_BY_MEMO = 'startedBy';

/** The memo field that holds a run's or a goal tree's goal, as `waveloop` starts them. */
export const GOAL_MEMO = 'goal';

/**
 * The memo field that holds the Priority a run was started with, as `waveloop` starts them:
 * Temporal's list of workflows does not return a workflow's Priority, its memo it does.
 */
export const PRIORITY_MEMO = 'priority';

export interface ListedRun {
  workflowId: string;
  runId: string;
  /** `agentLoop` (an agent run, a goal's tool loop included) or `pursueGoal` (a goal tree's root). */
  workflowType: string;
  /** Temporal's status: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT, … */
  execution: string;
  /**
   * The run's own status (its `WaveloopStatus`, e.g. `waiting_for_approval`, `cancelled`), unless
   * Temporal closed it before it ended on its own (`failed`, `terminated`, `timed_out`, `cancelled`:
   * `CLOSED_AS`); else Temporal's in lower case.
   */
  status: string;
  /** Where the run was forked from (`waveloop fork`), when it was. */
  forkedFrom?: ForkedFrom;
  /** Set for a dry run (its memo's `dryRun`): only `read` tools ran in it (docs/effects.md#dry-runs). */
  dryRun?: true;
  /** Who started it (its memo's `startedBy`), `unknown` when its client did not say. */
  startedBy: string;
  /** The run's or goal tree's goal (its memo, else its summary in the Web UI); absent when it has neither. */
  goal?: string;
  startTime: Date;
  closeTime?: Date;
  /** The Priority the run was started with (`priority`, `fairnessKey`, `fairnessWeight`), when it has one. */
  priority?: Priority;
}

/** How many runs without a goal in their memo are described at once (for their summary). */
const DESCRIBE_CONCURRENCY = 8;

/** What `runs.list` lists. */
export interface ListOptions {
  /** How many, newest first (default 20). */
  limit?: number;
  /**
   * Only agent runs in this status (or in one of these); a state that waits for a person lists the
   * undos (`undo:<run>`) that wait so too.
   */
  status?: RunState | readonly RunState[];
  /** Only the runs this schedule started (Temporal's `TemporalScheduledById`). */
  schedule?: string;
  /** Only the cases of this eval (their `WaveloopEval`). */
  eval?: string;
}

/** The newest agent runs and goal trees (their roots; a tree's sub-goals are in `waveloop tree`). */
export async function listRuns(client: Client, options: ListOptions = {}): Promise<ListedRun[]> {
  const { limit = 20 } = options;
  const runs: ListedRun[] = [];
  for await (const run of client.workflow.list({ query: listQuery(options) })) {
    runs.push(listedRun(run));
    if (runs.length >= limit) break;
  }
  await describeGoals(
    client,
    runs.filter((run) => run.goal === undefined),
  );
  return runs;
}

/** One page of `runs.listPage`: the runs, and the cursor of the next page (absent on the last). */
export interface RunPage {
  runs: ListedRun[];
  /** Where the next page starts (Temporal's page token and a checksum): pass it as `cursor` for the next page. */
  cursor?: string;
}

/**
 * One page of what `listRuns` lists, newest first: at most `limit` runs (default 20) from where
 * `cursor` (a page's `cursor`) left off. A cursor that is not one throws a `TypeError`.
 */
export async function listRunsPage(
  client: Client,
  { cursor, ...options }: Omit<ListOptions, 'limit'> & { limit?: number; cursor?: string } = {},
): Promise<RunPage> {
  const query = listQuery(options);
  const response = await client.workflowService.listWorkflowExecutions({
    namespace: client.options.namespace,
    query,
    pageSize: options.limit ?? 20,
    nextPageToken: cursor === undefined ? undefined : pageToken(cursor, query),
  });
  const infos = await Promise.all(
    (response.executions ?? []).map((raw) =>
      executionInfoFromRaw(raw, client.options.loadedDataConverter, raw, client.options.namespace),
    ),
  );
  const runs = infos.map((info) => listedRun(info as WorkflowExecutionInfo));
  await describeGoals(
    client,
    runs.filter((run) => run.goal === undefined),
  );
  const next = response.nextPageToken?.length ? cursorOf(response.nextPageToken, query) : undefined;
  return { runs, ...(next ? { cursor: next } : {}) };
}

/**
 * The cursor of Temporal's page token: the token, base64url, then a checksum of the token and the
 * list's query, so that a cursor mistyped, or of a list with other filters, is refused here (Temporal
 * answers a page token it did not make with an internal error, after retries).
 */
function cursorOf(token: Uint8Array, query: string): string {
  return `${Buffer.from(token).toString('base64url')}.${checksum(token, query)}`;
}

/** The page token `cursor` carries, for the list of `query`; a `TypeError` when it is not one of its cursors. */
function pageToken(cursor: string, query: string): Buffer {
  const [encoded = '', sum] = cursor.split('.');
  const token = Buffer.from(encoded, 'base64url');
  if (token.length === 0 || sum !== checksum(token, query))
    throw new TypeError(
      'cursor: not a cursor of this list (use the `cursor` of the page before, with the same filters).',
    );
  return token;
}

function checksum(token: Uint8Array, query: string): string {
  return createHash('sha256').update(query).update(token).digest().subarray(0, 12).toString('base64url');
}

/**
 * The statuses a run ends with on its own (`RUN_STATUSES`, and `failed`, which only the status query
 * says): one of them in `WaveloopStatus` is how the run ended, whatever Temporal's status.
 */
const ENDED: readonly string[] = [...RUN_STATUSES, 'failed'];

/**
 * How Temporal closed a run that had not ended on its own (its `WaveloopStatus` still `running` or
 * waiting): its status in the list, by Temporal's status (its name in the client, its name in a
 * visibility query). A run continued as new is not here: its chain goes on, and its own status
 * stays what it was when it handed over; a completed one has ended on its own.
 */
const CLOSED_AS = [
  { execution: 'FAILED', visibility: 'Failed', status: 'failed' },
  { execution: 'TERMINATED', visibility: 'Terminated', status: 'terminated' },
  { execution: 'TIMED_OUT', visibility: 'TimedOut', status: 'timed_out' },
  { execution: 'CANCELLED', visibility: 'Canceled', status: 'cancelled' },
] as const;

/**
 * A run's status in the list, from its own status (`WaveloopStatus`, absent when it never set one)
 * and Temporal's (`execution`): the own status once the run ended on its own; else how Temporal
 * closed it (`CLOSED_AS`); else the own status, or Temporal's in lower case.
 */
export function listedStatus(own: string | undefined, execution: string): string {
  if (own !== undefined && ENDED.includes(own)) return own;
  const closed = CLOSED_AS.find((closing) => closing.execution === execution);
  return closed?.status ?? own ?? execution.toLowerCase();
}

/**
 * The visibility query of `options`: agent runs in a status (and, for a state that waits for a
 * person, undos of runs waiting so: docs/effects.md#undo-approvals), else agent runs and goal trees' roots.
 */
function listQuery({ status, schedule, eval: evalName }: ListOptions): string {
  const states = typeof status === 'string' ? [status] : status;
  const waiting = states?.filter((state) => (WAITING_STATES as readonly string[]).includes(state)) ?? [];
  const runs = states && `WorkflowType = '${AGENT_LOOP_WORKFLOW}' AND (${states.map(stateQuery).join(' OR ')})`;
  const undos = `WorkflowType = '${UNDO_WORKFLOW}' AND (${waiting.map(stateQuery).join(' OR ')})`;
  const kinds = runs
    ? waiting.length
      ? `((${runs}) OR (${undos}))`
      : runs
    : `(WorkflowType = '${AGENT_LOOP_WORKFLOW}' OR (WorkflowType = '${PURSUE_GOAL_WORKFLOW}' AND ParentWorkflowId IS NULL))`;
  const scheduled = schedule === undefined ? kinds : `${kinds} AND TemporalScheduledById = '${quoted(schedule)}'`;
  return evalName === undefined ? scheduled : `${scheduled} AND ${WAVELOOP_EVAL.name} = '${quoted(evalName)}'`;
}

/**
 * The visibility query of the agent runs `listedStatus` lists as `state`: an ended state is the own
 * status, or Temporal's closing of a run that had not ended (`failed` finds a run whose
 * `WaveloopStatus` still says `running` but that Temporal failed); a state of a run that goes on
 * (`running`, waiting) is the own status of a run Temporal did not close that way.
 */
function stateQuery(state: RunState): string {
  const own = `${WAVELOOP_STATUS.name} = '${state}'`;
  if (!ENDED.includes(state)) {
    const closings = CLOSED_AS.map((closing) => `'${closing.visibility}'`).join(', ');
    return `(${own} AND ExecutionStatus NOT IN (${closings}))`;
  }
  const ended = ENDED.map((status) => `'${status}'`).join(', ');
  const closedAs = CLOSED_AS.filter((closing) => closing.status === state).map(
    (closing) =>
      `(ExecutionStatus = '${closing.visibility}' AND (${WAVELOOP_STATUS.name} IS NULL OR ${WAVELOOP_STATUS.name} NOT IN (${ended})))`,
  );
  return closedAs.length ? `(${[own, ...closedAs].join(' OR ')})` : own;
}

/** `text` for a visibility query's single-quoted string. */
function quoted(text: string): string {
  return text.replace(/'/g, "\\'");
}

/** A run as the list shows it (its goal from its memo, when it has one). */
function listedRun(run: WorkflowExecutionInfo): ListedRun {
  const own = run.typedSearchAttributes.get(WAVELOOP_STATUS);
  const goal = run.memo?.[GOAL_MEMO];
  const forkedFrom = run.memo?.[FORKED_FROM_MEMO] as ForkedFrom | undefined;
  const startedBy = run.memo?.[STARTED_BY_MEMO];
  return {
    workflowId: run.workflowId,
    runId: run.runId,
    workflowType: run.type,
    execution: run.status.name,
    status: listedStatus(own, run.status.name),
    goal: typeof goal === 'string' ? goal : undefined,
    startedBy: typeof startedBy === 'string' ? startedBy : UNKNOWN_PERSON,
    ...(forkedFrom ? { forkedFrom } : {}),
    ...(run.memo?.[DRY_RUN_MEMO] === true ? { dryRun: true as const } : {}),
    startTime: run.startTime,
    closeTime: run.closeTime,
    ...withPriority(setPriority((run.memo?.[PRIORITY_MEMO] as Priority | undefined) ?? run.priority)),
  };
}

/** Fills in the goal of runs started without one in their memo, from their summary. */
async function describeGoals(client: Client, runs: ListedRun[]): Promise<void> {
  for (let i = 0; i < runs.length; i += DESCRIBE_CONCURRENCY) {
    await Promise.all(
      runs.slice(i, i + DESCRIBE_CONCURRENCY).map(async (run) => {
        const description = await client.workflow
          .getHandle(run.workflowId, run.runId)
          .describe()
          .catch(() => undefined);
        run.goal = (await description?.staticSummary().catch(() => undefined)) ?? undefined;
      }),
    );
  }
}
