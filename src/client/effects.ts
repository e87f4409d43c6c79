import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { ResolvedRun, ToolInfo } from '../contract/activity-io';
import type { ToolCallRecord, WaveRecord } from '../contract/agent-loop';
import { AGENT_LOOP_WORKFLOW } from '../contract/agent-loop';
import { DEFAULT_EFFECT, type ToolEffect } from '../contract/effects/effect';
import { ranWithEffect, wavesSoFar } from '../contract/effects/effect-calls';
import type { CallOutcome } from '../contract/effects/outcome';
import { undoWorkflowId } from '../contract/effects/undo';
import { PURSUE_GOAL_WORKFLOW } from '../contract/goal-tree/defaults';
import { maskArgs } from '../contract/sensitive';
import { decodeHistoryPayloads } from '../payloads/decode-history';
import type { GoalTreeNode } from './goal-tree';
import type { GoalsClient } from './goals';
import type { RunsClient, RunStatusReport } from './runs';
import { readUndone } from './undo-history';

/**
 * The effect ledger: what a run changed in the systems outside it. Every call of a tool whose
 * effect is not `read` that ran, whether it succeeded or failed (a failed call may have changed
 * something before it failed), with its arguments (sensitive values masked), its result or error,
 * who approved it, for one whose attempt may have acted how that was settled, and which undo
 * reversed it. The calls come from the run's waves (its result once it ended, its `status`
 * query while it runs: what `waveloop show` reads); each tool's effect and sensitive parameters
 * from what the run resolved when it started, which its history records.
 */

/** One call that may have changed something outside the run. */
export interface EffectEntry {
  /** The agent run that made the call: the run itself, or a goal tree's tool loop. */
  workflowId: string;
  iteration: number;
  /** The model's tool call id. */
  callId: string;
  tool: string;
  effect: Exclude<ToolEffect, 'read'>;
  /** The arguments it ran with (a person's edit, when they approved it edited), sensitive values masked. */
  args: Record<string, unknown>;
  ok: boolean;
  /** What the call returned (the model saw it). */
  result?: string;
  /** What went wrong, when it failed. */
  error?: string;
  /** Who approved the call, when it waited for approval (`timeout` when its deadline approved it). */
  approvedBy?: string[];
  /**
   * How the call was settled when an attempt may have acted before it was cut off: `reconciled`,
   * `confirmed` by a person, `rerun` or `given_up` (docs/effects.md#unknown-outcomes).
   */
  outcome?: CallOutcome;
  /** Whether the call's tool has an `undo` (as the run resolved it): `waveloop undo` can reverse the call. */
  undoable: boolean;
  /**
   * Which undo reversed the call, who asked for it, who approved it (an undo of a call that waited
   * for approval waits too) and when it completed (docs/effects.md#undo).
   */
  undone?: { by: string; at: string; undoId: string; undoRunId: string; approvedBy?: string[] };
}

/** What a run (with the runs its agent calls started), or a goal tree's tool loops, changed. */
export interface EffectLedger {
  workflowId: string;
  kind: 'agent run' | 'goal tree';
  /** The calls by run (a tree's in tree order), then iteration, then their order in the wave. */
  effects: EffectEntry[];
  /** Runs whose calls could not be read, and why (a failed run whose `status` query no worker answered). */
  unread?: Array<{ workflowId: string; reason: string }>;
}

/** What reading a ledger needs of a `WaveloopClient`. */
export interface LedgerClients {
  runs: RunsClient;
  goals: GoalsClient;
  temporal: Client;
}

/**
 * The ledger of `workflowId`: an agent run's calls, or every tool loop's of a goal tree (a subtree
 * too). Throws Temporal's `WorkflowNotFoundError` for an id of no workflow, a `TypeError` for a
 * workflow that is neither.
 */
export async function readEffectLedger(client: LedgerClients, workflowId: string): Promise<EffectLedger> {
  const { type } = await client.runs.handle(workflowId).describe();
  if (type !== AGENT_LOOP_WORKFLOW && type !== PURSUE_GOAL_WORKFLOW)
    throw new TypeError(`${workflowId} is a ${type} workflow, not a waveloop run or goal tree.`);
  const kind = type === AGENT_LOOP_WORKFLOW ? 'agent run' : 'goal tree';
  const runs =
    kind === 'agent run' ? await withAgentRuns(client, workflowId) : toolLoopsOf(await client.goals.tree(workflowId));
  const ledger: EffectLedger = { workflowId, kind, effects: [] };
  for (const run of runs) {
    const read = await runEffects(client, run);
    ledger.effects.push(...read.effects);
    if (read.unread) (ledger.unread ??= []).push({ workflowId: run, reason: read.unread });
  }
  return ledger;
}

/**
 * One agent run's effects; `report` when the caller has read the run's status already. `unread`
 * says why its calls could not be read (none are then listed).
 */
export async function runEffects(
  client: LedgerClients,
  workflowId: string,
  report?: RunStatusReport,
): Promise<{ effects: EffectEntry[]; unread?: string }> {
  const read = await runCalls(client, workflowId, report);
  if (read.unread !== undefined) return { effects: [], unread: read.unread };
  const effects = read.calls.map(({ wave, call, tool }) => entryOf(workflowId, wave, call, tool));
  const undone = new Map((await readUndone(client.temporal, workflowId)).map((call) => [call.callId, call]));
  for (const entry of effects) {
    const undo = undone.get(entry.callId);
    if (undo)
      entry.undone = {
        by: undo.by,
        at: undo.at,
        undoId: undoWorkflowId(workflowId),
        undoRunId: undo.undoRunId,
        ...(undo.approvedBy ? { approvedBy: undo.approvedBy } : {}),
      };
  }
  return { effects };
}

/** A call of a run that ran and may have changed something, with its tool as the run resolved it. */
export interface RunEffectCall {
  wave: WaveRecord;
  call: ToolCallRecord;
  tool: ToolInfo;
}

/**
 * The calls of run `workflowId` of tools that are not `read` that ran, in the order of the waves,
 * arguments in clear (`runEffects` lists them masked; an undo needs them whole), and the run's agent
 * (as it resolved it). `unread` says why they could not be read.
 */
export async function runCalls(
  client: LedgerClients,
  workflowId: string,
  report?: RunStatusReport,
): Promise<{ calls: RunEffectCall[]; agent?: string; unread?: string }> {
  const status = report ?? (await client.runs.status(workflowId));
  let waves = settledWaves(status);
  if (!waves) {
    // A run that failed has no result: its status query (answered by a worker) still has its waves.
    const progress = await client.runs.progress(workflowId, { quick: true }).catch(() => undefined);
    if (!progress) {
      const ended = status.execution === 'RUNNING' ? '' : `the run ended ${status.execution.toLowerCase()} and `;
      return { calls: [], unread: `${ended}no worker answered its status query` };
    }
    waves = wavesSoFar(progress);
  }
  const { agent, tools } = await resolvedTools(client.temporal, workflowId);
  return {
    ...(agent === undefined ? {} : { agent }),
    calls: waves.flatMap((wave) =>
      wave.calls.flatMap((call) => {
        const tool = tools.get(call.tool);
        return tool && ranWithEffect(call, tool) ? [{ wave, call, tool }] : [];
      }),
    ),
  };
}

/** The run's settled waves (and the settling one's calls), or undefined when neither its result nor its status says. */
function settledWaves({ progress, result }: RunStatusReport): WaveRecord[] | undefined {
  if (result) return result.waves;
  if (progress) return wavesSoFar(progress);
  return undefined;
}

function entryOf(workflowId: string, { iteration }: WaveRecord, call: ToolCallRecord, tool: ToolInfo): EffectEntry {
  const approval = call.approval;
  return {
    workflowId,
    iteration,
    callId: call.id,
    tool: call.tool,
    effect: (tool.effect ?? DEFAULT_EFFECT) as EffectEntry['effect'],
    args: maskArgs(call.args, tool.sensitive),
    ok: call.ok,
    ...(call.result === undefined ? {} : { result: call.result }),
    ...(call.error === undefined ? {} : { error: call.error }),
    ...(approval ? { approvedBy: approval.approvals?.map((vote) => vote.by) ?? [approval.by] } : {}),
    ...(call.outcome ? { outcome: call.outcome } : {}),
    undoable: tool.undo === true,
  };
}

/**
 * Run `workflowId` and the child runs its agent calls started (docs/agents.md), theirs too, each
 * after the run that called it: the agent calls of a wave that has settled (a child still running
 * is listed once its call has settled).
 */
async function withAgentRuns(client: LedgerClients, workflowId: string): Promise<string[]> {
  const runs = [workflowId];
  for (let i = 0; i < runs.length; i++) {
    const status = await client.runs.status(runs[i]!).catch(() => undefined);
    const waves = (status && settledWaves(status)) ?? [];
    const children = waves.flatMap((wave) => wave.calls.flatMap((call) => call.agentRun?.workflowId ?? []));
    runs.splice(i + 1, 0, ...children.filter((child) => !runs.includes(child)));
  }
  return runs;
}

/** The agent runs of a goal tree (its goals' tool loops), in tree order. */
function toolLoopsOf(tree: GoalTreeNode): string[] {
  const ids = new Set<string>();
  const walk = (node: GoalTreeNode) => {
    for (const event of node.events)
      if (event.eventType === 'executed' && typeof event.data.workflow_id === 'string') ids.add(event.data.workflow_id);
    if (node.toolLoop) ids.add(node.toolLoop.workflowId);
    if (node.openExecution) ids.add(node.openExecution);
    node.children.forEach(walk);
  };
  walk(tree);
  return [...ids];
}

const { EventType } = temporal.api.enums.v1;

/**
 * The agent and tools run `workflowId` resolved when it started, by name, from its latest run's history: a
 * run continued as new carries them in its input (`Continuation.run`); the first run of a chain
 * records them as the result of its `resolveRun` local activity (the first marker that holds one).
 * Payloads are decoded with the client's codecs. No tools while the run has not resolved them.
 */
async function resolvedTools(
  client: Client,
  workflowId: string,
): Promise<{ agent?: string; tools: Map<string, ToolInfo> }> {
  const converter = client.options.loadedDataConverter;
  const history = await decodeHistoryPayloads(
    await client.workflow.getHandle(workflowId).fetchHistory(),
    converter.payloadCodecs,
  );
  const decode = (payload: temporal.api.common.v1.IPayload | undefined): unknown =>
    payload ? converter.payloadConverter.fromPayload(payload) : undefined;
  for (const event of history.events ?? []) {
    let resolved: unknown;
    if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED) {
      const started = event.workflowExecutionStartedEventAttributes;
      if (!started?.continuedExecutionRunId) continue;
      resolved = (decode(started.input?.payloads?.[1]) as { run?: unknown } | undefined)?.run;
    } else if (event.eventType === EventType.EVENT_TYPE_MARKER_RECORDED) {
      resolved = decode(event.markerRecordedEventAttributes?.details?.result?.payloads?.[0]);
    }
    if (isResolvedRun(resolved))
      return { agent: resolved.agent, tools: new Map(resolved.tools.map((tool) => [tool.name, tool])) };
  }
  return { tools: new Map() };
}

function isResolvedRun(value: unknown): value is Pick<ResolvedRun, 'agent' | 'tools'> {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as ResolvedRun).tools) &&
    typeof (value as ResolvedRun).agent === 'string'
  );
}
