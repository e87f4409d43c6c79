import type { PersonUpdate } from '../client/person-updates';
import type { WaveloopClient } from '../client/waveloop-client';
import { endedStatus, identifyWorkflow } from '../client/workflow-kind';
import type { RunProgress } from '../contract/agent-loop';
import { toolSummary } from '../contract/summaries';

/**
 * Something a run waits for from a person, as a prompt at a terminal asks for it: whether the run
 * still waits for it, and, once it does not, what became of it: who decided, answered or replied
 * instead (from the run's history), or that the run ended first.
 */
export type Awaited =
  | { kind: 'approval'; call: RunProgress['pendingApprovals'][number] }
  | { kind: 'question'; question: RunProgress['pendingQuestions'][number] }
  /** The next message of a conversation, after the model's message of `iteration`. */
  | { kind: 'message'; iteration: number };

/** Whether the run, at `progress`, still waits for `awaited`. */
export function stillAwaited(progress: RunProgress, awaited: Awaited): boolean {
  if (progress.phase === 'done') return false;
  switch (awaited.kind) {
    case 'approval':
      return progress.pendingApprovals.some((a) => a.callId === awaited.call.callId);
    case 'question':
      return progress.pendingQuestions.some((q) => q.callId === awaited.question.callId);
    case 'message':
      return progress.conversation !== undefined && progress.iteration === awaited.iteration;
  }
}

/**
 * Whether `workflowId` still waits for `awaited`: asked through the `status` query, or, when no
 * worker answers it, whether the run is still running.
 */
export async function isStillAwaited(client: WaveloopClient, workflowId: string, awaited: Awaited): Promise<boolean> {
  try {
    return stillAwaited(await client.runs.progress(workflowId, { quick: true }), awaited);
  } catch {
    return (await identifyWorkflow(client, workflowId)).execution === 'RUNNING';
  }
}

/** One line on what became of `awaited`, which the run no longer waits for. */
export async function whatBecameOf(client: WaveloopClient, workflowId: string, awaited: Awaited): Promise<string> {
  const update = findUpdate(await client.runs.decisions(workflowId), awaited);
  const by = update?.identity ? ` by ${update.identity}` : '';
  if (update) {
    switch (update.name) {
      case 'approve':
        return `${describe(awaited, true)} was approved elsewhere${by}.`;
      case 'deny':
        return `${describe(awaited, true)} was denied elsewhere${by}${update.args[1] ? `: ${String(update.args[1])}` : ''}.`;
      case 'answer':
        return `${describe(awaited, true)} was answered elsewhere${by}: ${String(update.args[0])}`;
      case 'send':
        return `The next message was sent elsewhere${by}: ${String(update.args[0])}`;
      case 'end':
        return `The conversation was ended elsewhere${by}.`;
    }
  }
  const workflow = await identifyWorkflow(client, workflowId);
  if (workflow.execution !== 'RUNNING')
    return `Run ${workflowId} ended (${await endedStatus(client, workflow)}) before ${describe(awaited)} was settled.`;
  return `${describe(awaited, true)} no longer waits (its time ran out).`;
}

/** The update that settled `awaited`, if a person's update did. */
function findUpdate(updates: PersonUpdate[], awaited: Awaited): PersonUpdate | undefined {
  switch (awaited.kind) {
    case 'approval':
      return updates.find((u) => (u.name === 'approve' || u.name === 'deny') && u.args[0] === awaited.call.callId);
    case 'question':
      return updates.find(
        (u) => u.name === 'answer' && (u.result as { callId?: string } | undefined)?.callId === awaited.question.callId,
      );
    case 'message':
      // A conversation waits for one message at a time: the last send or end settled it.
      return updates.filter((u) => u.name === 'send' || u.name === 'end').at(-1);
  }
}

/** What `awaited` is, in a few words (`atStart`: to begin a sentence; a call reads `wave 3 · …` as on every line). */
function describe(awaited: Awaited, atStart = false): string {
  switch (awaited.kind) {
    case 'approval':
      return toolSummary(awaited.call.iteration, awaited.call.tool, awaited.call.args);
    case 'question':
      return `${atStart ? 'The' : 'the'} question "${awaited.question.question}"`;
    case 'message':
      return `${atStart ? 'The' : 'the'} next message`;
  }
}
