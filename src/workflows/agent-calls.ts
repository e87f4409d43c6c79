import { ChildWorkflowCancellationType, executeChild, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { ResolvedRun } from '../contract/activity-io';
import type { AgentChain } from '../contract/agent-chain';
import type { AgentLoopInput, AgentLoopResult, RunProgress, ToolCallRecord } from '../contract/agent-loop';
import { priorityFields } from '../contract/flow/priority';
import { workflowSummary } from '../contract/goal-tree/text';
import { costOf } from '../contract/model/pricing';
import { addUsage } from '../contract/model/usage';
import { AGENT_LOOP_WORKFLOW } from '../contract/workflow-names';
import { MAX_TIME_RESERVE_MS, MIN_CHILD_TIME_MS, RESERVE_FRACTION } from './goal-tree/budget';
import { describeFailure, timedOut, usageOfFailedChild } from './goal-tree/failures';
import { runDeadline } from './limits';
import type { Slots } from './slots';

/**
 * Agents as tools (docs/agents.md): a call of an agent the run offers (`agents`) runs that agent as
 * a child `agentLoop` on the task the model gave it, and the child's answer (or its typed output, as
 * JSON) is the call's result. Whatever goes wrong (bad arguments, a call back up the chain, a chain
 * too deep, no budget left, a failed child) is an error the model reads; only cancellation goes
 * through.
 */

/** What an agent call needs of its run. `progress.usage` grows by what each child used. */
export interface AgentCallContext {
  workflowId: string;
  run: Pick<ResolvedRun, 'agent' | 'settings' | 'price' | 'priority' | 'tree'>;
  progress: Pick<RunProgress, 'startedBy' | 'startedAt' | 'usage'>;
}

/**
 * What each agent call of a wave is given of the run's budgets: what the run has left, less a
 * reserve for its own answer (`RESERVE_FRACTION`), shared evenly among the wave's agent calls; and
 * its time until the run's deadline, less the same reserve (at most `MAX_TIME_RESERVE_MS`).
 */
export interface AgentShare {
  tokens?: number;
  costUsd?: number;
  /** The child's execution timeout; it wraps up with an answer shortly before (its soft deadline). */
  timeoutMs?: number;
}

type CallResult = Pick<ToolCallRecord, 'ok' | 'result' | 'error' | 'agentRun'>;

/** The shares of `count` agent calls of one wave, settled when the wave starts. */
export function agentShares(count: number, { run, progress }: AgentCallContext): AgentShare {
  if (count === 0) return {};
  const { maxTokens, maxCostUsd, timeoutSeconds } = run.settings;
  const slice = (left: number) => (Math.max(0, left) * (1 - RESERVE_FRACTION)) / count;
  const info = workflowInfo();
  const deadline = runDeadline(
    { expiration: info.executionExpirationTime, timeoutMs: info.executionTimeoutMs },
    { timeoutSeconds, startedAtMs: Date.parse(progress.startedAt) },
  );
  const timeLeft = deadline === undefined ? undefined : deadline - Date.now();
  return {
    ...(maxTokens === undefined ? {} : { tokens: Math.floor(slice(maxTokens - progress.usage.totalTokens)) }),
    ...(maxCostUsd === undefined ? {} : { costUsd: slice(maxCostUsd - costOf(progress.usage, run.price)) }),
    ...(timeLeft === undefined
      ? {}
      : { timeoutMs: Math.floor(timeLeft - Math.min(MAX_TIME_RESERVE_MS, Math.max(0, timeLeft) * RESERVE_FRACTION)) }),
  };
}

/** Runs the call `id` of the agent `agent` with `args` as a child run, in a slot of the wave. */
export async function callAgent(
  call: { id: string; agent: string; args: Record<string, unknown> },
  context: AgentCallContext,
  share: AgentShare,
  slots: Slots,
): Promise<CallResult> {
  const task = taskOf(call.args);
  if ('problem' in task) return { ok: false, error: task.problem };
  const chain = childChain(call, context, share);
  if ('refused' in chain) return { ok: false, error: chain.refused };
  const { run, progress } = context;
  const workflowId = `${context.workflowId}/${call.id}`;
  const agentRun = { workflowId, agent: call.agent };
  const input: AgentLoopInput = {
    goal: task.task,
    agent: call.agent,
    startedBy: progress.startedBy,
    chain: chain.chain,
    ...priorityFields(run.settings),
    ...(run.settings.dryRun ? { dryRun: true } : {}),
    // The webhooks the parent's input named (already allowed) hear of the child's waits; a child's notice names the root.
    ...(run.tree?.webhooks ? { webhooks: run.tree.webhooks } : {}),
  };
  const summary = workflowSummary(`${call.agent} · ${task.task}`);
  try {
    const result = await slots.run(() =>
      executeChild<(input: AgentLoopInput) => Promise<AgentLoopResult>>(AGENT_LOOP_WORKFLOW, {
        workflowId,
        args: [input],
        // Cancelling the parent cancels the child, and the parent waits for it to end so.
        cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
        ...(share.timeoutMs === undefined ? {} : { workflowExecutionTimeout: share.timeoutMs }),
        staticSummary: summary,
        // As `waveloop run` starts a run (client/run-list.ts: GOAL_MEMO, STARTED_BY_MEMO): `list` and `pending` read them.
        memo: { goal: summary, startedBy: progress.startedBy },
        ...(run.priority ? { priority: run.priority } : {}),
      }),
    );
    progress.usage = addUsage(progress.usage, result.usage);
    const ended = { agentRun: { ...agentRun, status: result.status, usage: result.usage } };
    if (result.status === 'cancelled') return { ok: false, error: `${call.agent} was cancelled.`, ...ended };
    const answer = result.output === undefined ? result.answer : JSON.stringify(result.output);
    if (result.status === 'completed') return { ok: true, result: answer, ...ended };
    return { ok: true, result: `(${call.agent} stopped early: ${result.status}) ${answer}`, ...ended };
  } catch (err) {
    if (isCancellation(err)) throw err;
    const used = usageOfFailedChild(err);
    if (used) progress.usage = addUsage(progress.usage, used);
    const why = timedOut(err) ? 'it ran out of time' : describeFailure(err);
    return { ok: false, error: `${call.agent} failed: ${why}`, agentRun };
  }
}

/** The task of an agent call's arguments (`{ task }`, agent-tool.ts's schema), or what is wrong with them. */
function taskOf(args: Record<string, unknown>): { task: string } | { problem: string } {
  const others = Object.keys(args).filter((key) => key !== 'task');
  if (others.length > 0)
    return {
      problem: `an agent takes only { "task": "…" }; unknown field${others.length > 1 ? 's' : ''}: ${others.join(', ')}`,
    };
  const task = typeof args.task === 'string' ? args.task.trim() : '';
  if (!task)
    return { problem: 'an agent needs a non-empty "task" string: what it is to do, with all it needs to know' };
  return { task };
}

/**
 * The chain the child gets: its parent's, with this run and call added, and the child's share of
 * the budgets. Refused (with what the model is told) when the agent is already in the chain (a
 * cycle), when the child would be deeper than the tree's depth limit, or when its share is empty.
 */
function childChain(
  call: { id: string; agent: string },
  { workflowId, run }: AgentCallContext,
  share: AgentShare,
): { chain: AgentChain } | { refused: string } {
  const parent = run.tree?.chain;
  const parents = [...(parent?.parents ?? []), { agent: run.agent, workflowId, callId: call.id }];
  const path = parents.map((link) => link.agent).join(' → ');
  if (parents.some((link) => link.agent === call.agent))
    return {
      refused:
        `refused: ${call.agent} is already in this chain of agents (${path}), so calling it would be a cycle. ` +
        'Do this part yourself, or answer with what you have.',
    };
  const maxDepth = parent?.maxDepth ?? run.settings.maxAgentDepth;
  if (parents.length > maxDepth)
    return {
      refused: `refused: the chain of agents (${path}) is already ${maxDepth} deep, the most this run allows (maxAgentDepth). Do this part yourself.`,
    };
  if (share.tokens !== undefined && share.tokens < 1)
    return { refused: `refused: no token budget is left for ${call.agent} (maxTokens). Answer with what you have.` };
  if (share.costUsd !== undefined && share.costUsd <= 0)
    return { refused: `refused: no cost budget is left for ${call.agent} (maxCostUsd). Answer with what you have.` };
  if (share.timeoutMs !== undefined && share.timeoutMs < MIN_CHILD_TIME_MS)
    return {
      refused: `refused: too little time is left for ${call.agent} (timeoutSeconds). Answer with what you have.`,
    };
  const budget = {
    ...(share.tokens === undefined ? {} : { tokens: share.tokens }),
    ...(share.costUsd === undefined ? {} : { costUsd: share.costUsd }),
  };
  // The root's goal as its runs' summaries show it: every run of the tree carries it.
  const root = parent?.root ?? { workflowId, goal: workflowSummary(run.tree?.goal ?? '') };
  return { chain: { root, parents, maxDepth, ...(Object.keys(budget).length ? { budget } : {}) } };
}
