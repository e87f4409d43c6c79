import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { optionalTsToDate } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { AGENT_LOOP_WORKFLOW, type AgentLoopResult, type WaveRecord } from '../contract/agent-loop';
import {
  GOAL_TREE_ACTIVITIES,
  type GoalTreeActivities,
  type GoalTreeActivityName,
} from '../contract/goal-tree/activities';
import { PURSUE_GOAL_WORKFLOW } from '../contract/goal-tree/defaults';
import { groupIntoLevels } from '../contract/goal-tree/levels';
import type { GoalInput, GoalResult } from '../contract/goal-tree/pursue-goal';
import { decodeHistoryPayloads } from '../payloads/decode-history';

/**
 * A goal tree read back from Temporal: the history of each goal workflow is the durable log, so
 * the tree, its timings and its event log are derived from the histories of the root and its child
 * workflows. Works while the tree runs, and long after. The goal's steps are its activities, read
 * by their names in `GOAL_TREE_ACTIVITIES` and typed by `GoalTreeActivities`, the names and
 * signatures the workflow and the worker's activities use too.
 */

type History = temporal.api.history.v1.IHistory;
/** Histories of closed goal workflows, by workflow id, kept between reads of a tree. */
export type HistoryCache = Map<string, History>;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const EventType = temporal.api.enums.v1.EventType;

/** A goal tree's activity that completed, as its history records it: what it was given and what it returned. */
type CompletedActivity = {
  [N in GoalTreeActivityName]: {
    name: N;
    input: Parameters<GoalTreeActivities[N]>[0];
    output: Awaited<ReturnType<GoalTreeActivities[N]>>;
  };
}[GoalTreeActivityName];

const ACTIVITY_NAMES: ReadonlySet<string> = new Set(Object.values(GOAL_TREE_ACTIVITIES));

function isGoalTreeActivity(name: string): name is GoalTreeActivityName {
  return ACTIVITY_NAMES.has(name);
}

/** What a goal's log records, plus the end of a goal that was not achieved or synthesized. */
export type GoalEventType =
  | 'started'
  | 'assessed'
  | 'decomposed'
  | 'executed'
  | 'achieved'
  | 'synthesized'
  | 'constrained'
  | 'cycle_detected'
  | 'failed';

/** One entry of a goal tree's event log; `goalEventRecord` gives it as a line of `waveloop tree <id> --jsonl`. */
export interface GoalEvent {
  timestamp: string;
  eventType: GoalEventType;
  goal: string;
  depth: number;
  parentGoal: string | null;
  /** The goal's workflow; null for a sub-goal that was never started. */
  workflowId: string | null;
  /** What the event records, with the field names of the JSONL log (`sub_goal_count`, `workflow_id`, …). */
  data: Record<string, unknown>;
}

/** `event` as a record of the JSONL event log, with its documented field names (`event_type`, `parent_goal`, `workflow_id`). */
export function goalEventRecord(event: GoalEvent): Record<string, unknown> {
  const { timestamp, eventType, goal, depth, parentGoal, workflowId, data } = event;
  return { timestamp, event_type: eventType, goal, depth, parent_goal: parentGoal, workflow_id: workflowId, data };
}

export interface GoalTreeNode {
  workflowId?: string;
  goal: string;
  depth: number;
  parentGoal: string | null;
  /** Temporal's status (RUNNING, COMPLETED, FAILED, TIMED_OUT, …), or NOT_STARTED for a refused sub-goal. */
  execution: string;
  startTime?: Date;
  closeTime?: Date;
  result?: GoalResult;
  /** Why the workflow failed, timed out or was terminated. */
  failure?: string;
  /** The workflow id of the goal's tool loop (`agentLoop`) while it runs: it may wait for a person. */
  openExecution?: string;
  /** The goal's tool loop once it completed: its workflow id and its waves. */
  toolLoop?: { workflowId: string; waves: WaveRecord[] };
  events: GoalEvent[];
  children: GoalTreeNode[];
}

/**
 * Reads the tree rooted at `workflowId`. `cache` keeps the histories of closed workflows between
 * calls (they cannot change), so following a running tree refetches only what is still open.
 */
export async function readGoalTree(
  client: Client,
  workflowId: string,
  cache: HistoryCache = new Map(),
): Promise<GoalTreeNode> {
  let history = cache.get(workflowId);
  if (!history) {
    // Payloads are decoded with the client's codecs (gzip, encryption, claim check) before parsing.
    history = await decodeHistoryPayloads(
      await client.workflow.getHandle(workflowId).fetchHistory(),
      client.options.loadedDataConverter.payloadCodecs,
    );
    if (isClosed(history)) cache.set(workflowId, history);
  }
  const { node, childIds } = parseGoalHistory(workflowId, history);
  const started = await Promise.all(childIds.map((id) => readGoalTree(client, id, cache)));
  const byId = new Map(started.map((child) => [child.workflowId, child]));
  if (node.result) {
    // The result lists every sub-goal in order, the never-started ones included.
    node.children = node.result.children.map((child) =>
      child.workflowId && byId.has(child.workflowId) ? byId.get(child.workflowId)! : notStarted(child, node),
    );
  } else {
    node.children = started;
  }
  return node;
}

/** The event log of a tree, oldest first (ties keep the tree's order). */
export function goalEvents(tree: GoalTreeNode): GoalEvent[] {
  const all: GoalEvent[] = [];
  const walk = (node: GoalTreeNode) => {
    all.push(...node.events);
    node.children.forEach(walk);
  };
  walk(tree);
  return all
    .map((event, index) => ({ event, index }))
    .sort((a, b) => a.event.timestamp.localeCompare(b.event.timestamp) || a.index - b.index)
    .map((e) => e.event);
}

/** Parses one goal workflow's history: the node (without children) and the ids of its goal children. */
export function parseGoalHistory(workflowId: string, history: History): { node: GoalTreeNode; childIds: string[] } {
  const node: GoalTreeNode = {
    workflowId,
    goal: '',
    depth: 0,
    parentGoal: null,
    execution: 'RUNNING',
    events: [],
    children: [],
  };
  const childIds: string[] = [];
  const executions = new Set<string>();
  const scheduled = new Map<number, { name: GoalTreeActivityName; input: unknown }>();
  const emit = (event: HistoryEvent, type: GoalEventType, data: Record<string, unknown> = {}) =>
    node.events.push({
      timestamp: (optionalTsToDate(event.eventTime) ?? new Date(0)).toISOString(),
      eventType: type,
      goal: node.goal,
      depth: node.depth,
      parentGoal: node.parentGoal,
      workflowId,
      data,
    });

  for (const event of history.events ?? []) {
    switch (event.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED: {
        const input = decode<GoalInput>(event.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]);
        const stack = input?.node?.stack ?? [];
        Object.assign(node, {
          goal: input?.node?.goal ?? input?.goal ?? '',
          depth: stack.length,
          parentGoal: stack.length ? stack[stack.length - 1] : null,
          startTime: optionalTsToDate(event.eventTime),
        });
        emit(event, 'started');
        break;
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: {
        const attrs = event.activityTaskScheduledEventAttributes!;
        const name = attrs.activityType?.name ?? '';
        if (isGoalTreeActivity(name))
          scheduled.set(Number(event.eventId), { name, input: decode(attrs.input?.payloads?.[0]) });
        break;
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED: {
        const attrs = event.activityTaskCompletedEventAttributes!;
        const activity = scheduled.get(Number(attrs.scheduledEventId));
        const output = decode(attrs.result?.payloads?.[0]);
        // The payloads are what the activity was given and returned: its signature in `GoalTreeActivities`.
        if (activity && output && activity.input)
          componentEvent(event, { ...activity, output } as CompletedActivity, emit);
        break;
      }
      case EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED: {
        const attrs = event.startChildWorkflowExecutionInitiatedEventAttributes!;
        if (attrs.workflowType?.name === PURSUE_GOAL_WORKFLOW) childIds.push(attrs.workflowId!);
        if (attrs.workflowType?.name === AGENT_LOOP_WORKFLOW) {
          executions.add(attrs.workflowId!);
          node.openExecution = attrs.workflowId!;
        }
        break;
      }
      case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED: {
        const attrs = event.childWorkflowExecutionCompletedEventAttributes!;
        const id = attrs.workflowExecution?.workflowId ?? '';
        if (executions.has(id)) {
          delete node.openExecution;
          const run = decode<AgentLoopResult>(attrs.result?.payloads?.[0]);
          node.toolLoop = { workflowId: id, waves: run?.waves ?? [] };
          emit(event, 'executed', {
            success: run?.status === 'completed',
            mode: 'tools',
            workflow_id: id,
            iterations: run?.iterations,
          });
        }
        break;
      }
      case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED:
      case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TIMED_OUT:
      case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TERMINATED:
      case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_CANCELED: {
        const attrs =
          event.childWorkflowExecutionFailedEventAttributes ??
          event.childWorkflowExecutionTimedOutEventAttributes ??
          event.childWorkflowExecutionTerminatedEventAttributes ??
          event.childWorkflowExecutionCanceledEventAttributes;
        const id = attrs?.workflowExecution?.workflowId ?? '';
        if (executions.has(id)) {
          delete node.openExecution;
          emit(event, 'executed', {
            success: false,
            mode: 'tools',
            workflow_id: id,
            outcome: closeName(event.eventType),
          });
        }
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED: {
        const result = decode<GoalResult>(event.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0]);
        Object.assign(node, { execution: 'COMPLETED', closeTime: optionalTsToDate(event.eventTime), result });
        if (
          result &&
          (result.status === 'constrained' || result.status === 'cycle_detected' || result.status === 'failed')
        ) {
          emit(event, result.status, {
            reason: result.reason ?? null,
            ...(result.constraint ? { constraint: result.constraint } : {}),
          });
        }
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED:
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT:
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED:
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED:
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW: {
        const execution = closeName(event.eventType);
        const failure =
          event.workflowExecutionFailedEventAttributes?.failure?.message ??
          (execution === 'TIMED_OUT' ? 'the goal workflow timed out (time limit)' : execution.toLowerCase());
        Object.assign(node, { execution, closeTime: optionalTsToDate(event.eventTime), failure });
        emit(event, execution === 'TIMED_OUT' ? 'constrained' : 'failed', {
          reason: failure,
          ...(execution === 'TIMED_OUT' ? { constraint: 'time' } : {}),
        });
        break;
      }
    }
  }
  return { node, childIds };
}

/** The event of the log a goal tree's completed activity records, if it records one. */
function componentEvent(
  event: HistoryEvent,
  activity: CompletedActivity,
  emit: (event: HistoryEvent, type: GoalEventType, data?: Record<string, unknown>) => void,
): void {
  const A = GOAL_TREE_ACTIVITIES;
  switch (activity.name) {
    case A.assess: {
      const { output } = activity;
      if (output.ok)
        emit(event, 'assessed', {
          directly_executable: output.value.directly_executable,
          action: output.value.action?.kind ?? null,
        });
      break;
    }
    case A.decompose: {
      const { output } = activity;
      if (output.ok) {
        const subGoals = output.value.sub_goals;
        const { levels, problem } = groupIntoLevels(subGoals.map((s) => s.dependencies));
        emit(event, 'decomposed', {
          sub_goal_count: subGoals.length,
          sub_goals: subGoals.map((s) => s.description),
          levels,
          ...(problem ? { dependency_problem: problem } : {}),
        });
      }
      break;
    }
    case A.checkAchieved: {
      const { input, output } = activity;
      if (output.ok && output.value.achieved)
        emit(event, 'achieved', {
          sub_goals_completed: input.results?.length ?? 0,
          confidence: output.value.confidence,
        });
      break;
    }
    case A.synthesize:
      if (activity.output.ok) emit(event, 'synthesized', { confidence: activity.output.value.confidence });
      break;
    case A.answer:
      if (activity.output.ok || activity.input.repair)
        emit(event, 'executed', { success: activity.output.ok, mode: 'answer' });
      break;
    case A.resolve:
    case A.shapeOutput:
      break;
  }
}

function notStarted(result: GoalResult, parent: GoalTreeNode): GoalTreeNode {
  const timestamp = (parent.closeTime ?? new Date()).toISOString();
  return {
    goal: result.goal,
    depth: parent.depth + 1,
    parentGoal: parent.goal,
    execution: 'NOT_STARTED',
    result,
    events: [
      {
        timestamp,
        eventType: result.status,
        goal: result.goal,
        depth: parent.depth + 1,
        parentGoal: parent.goal,
        workflowId: null,
        data: {
          reason: result.reason ?? null,
          ...(result.constraint ? { constraint: result.constraint } : {}),
          started: false,
        },
      } as GoalEvent,
    ],
    children: [],
  };
}

function isClosed(history: History): boolean {
  const last = history.events?.[history.events.length - 1];
  return closeName(last?.eventType) !== 'RUNNING';
}

function closeName(type: temporal.api.enums.v1.EventType | null | undefined): string {
  switch (type) {
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
      return 'COMPLETED';
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED:
    case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED:
      return 'FAILED';
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT:
    case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TIMED_OUT:
      return 'TIMED_OUT';
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED:
    case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TERMINATED:
      return 'TERMINATED';
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED:
    case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_CANCELED:
      return 'CANCELED';
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
      return 'CONTINUED_AS_NEW';
    default:
      return 'RUNNING';
  }
}

function decode<T>(payload: temporal.api.common.v1.IPayload | null | undefined): T | undefined {
  return payload ? (defaultPayloadConverter.fromPayload(payload) as T) : undefined;
}
