import { WorkflowIdReusePolicy, type WorkflowHandle } from '@temporalio/client';
import { AGENT_LOOP_WORKFLOW } from '../contract/agent-loop';
import { undoCallOf } from '../contract/effects/effect-calls';
import {
  UNDO_WORKFLOW,
  undoEntryOf,
  undoWorkflowId,
  type UndoCall,
  type UndoInput,
  type UndoneCall,
  type UndoResult,
} from '../contract/effects/undo';
import { statusQuery } from '../contract/messages';
import { runCalls, type LedgerClients } from './effects';
import { hasLiveWorker } from './live-worker';
import { pendingOf, type PendingDecision } from './pending';
import { readUndone } from './undo-history';

/**
 * Undo of a run (docs/effects.md#undo): the client finds the calls to undo in the run's waves (the
 * effect ledger's calls that succeeded, arguments in clear), leaves out those an earlier undo
 * reversed and those of iterations up to `toIteration`, orders them later first, and starts the
 * `undoRun` workflow (`undo:<run>`) with them, or, for a dry run, lists what it would do.
 */

/** Options of an undo (`WaveloopClient.undo`). */
export interface UndoOptions {
  /** Undo only the calls of iterations after this one; iteration N itself is kept. Default: all. */
  toIteration?: number;
  /** List what would be undone, and undo nothing. */
  dryRun?: boolean;
  /** Go past calls whose tool has no `undo` instead of stopping at the first. */
  skipIrreversible?: boolean;
  /** Who asks for the undo; default: the client's identity. */
  by?: string;
  /**
   * Wait until the undo has finished (default). `false`: answer once it has started, with what it is
   * to do (`running: true`; `undone` then lists the calls it is to undo, as a dry run's does).
   */
  wait?: boolean;
  /**
   * While the undo is waited for: told each approval it begins to wait for (the undo of a call that
   * waited for approval waits too), with the command that decides it, once each.
   */
  onWaiting?: (decision: PendingDecision) => void;
}

/** How often a waited-for undo is asked what it waits for (`onWaiting`). */
const WAITING_POLL_MS = 1_000;

/**
 * What an undo did, or, for a dry run, would do (`undone` then lists the calls it would undo, without
 * `undoResult`). `alreadyUndone`: the calls earlier undos reversed, left out. When nothing is left
 * to undo, nothing starts: every list is empty and there is no `undoId`.
 */
export interface UndoReport extends Omit<UndoResult, 'undoId' | 'undoRunId'> {
  undoId?: string;
  undoRunId?: string;
  dryRun: boolean;
  /** Set for an undo started and not waited for (`wait: false`): it runs on; `undone` lists what it is to undo. */
  running?: true;
  alreadyUndone: UndoneCall[];
}

/**
 * An undo refused before it started, nothing undone: the run still runs, an undo of it runs, it is
 * no agent run, its calls could not be read (`conflict`), or no worker polls the task queue to run
 * the undo (`no_worker`).
 */
export class UndoRefusedError extends Error {
  override name = 'UndoRefusedError';
  constructor(
    message: string,
    readonly reason: 'conflict' | 'no_worker' = 'conflict',
  ) {
    super(message);
  }
}

/** What an undo needs of a `WaveloopClient`: the ledger's clients, its task queue and identity. */
export interface UndoClients extends LedgerClients {
  taskQueue: string;
}

/** Undoes run `workflowId`'s calls, or lists them for a dry run; waits until the undo has finished. */
export async function undoRun(
  client: UndoClients,
  workflowId: string,
  options: UndoOptions & { by: string },
): Promise<UndoReport> {
  const description = await client.runs.handle(workflowId).describe();
  if (description.type !== AGENT_LOOP_WORKFLOW)
    throw new UndoRefusedError(
      `${workflowId} is a ${description.type} workflow, not an agent run: only an agent run's calls can be undone.`,
    );
  if (description.status.name === 'RUNNING')
    throw new UndoRefusedError(
      `${workflowId} is still running: cancel it (waveloop cancel ${workflowId}) or let it end, then undo it.`,
    );
  const undoing = await client.temporal.workflow
    .getHandle(undoWorkflowId(workflowId))
    .describe()
    .catch(() => undefined);
  if (undoing?.status.name === 'RUNNING')
    throw new UndoRefusedError(
      `An undo of ${workflowId} is running (${undoWorkflowId(workflowId)}): wait for it to finish.`,
    );

  const read = await runCalls(client, workflowId);
  if (read.unread !== undefined)
    throw new UndoRefusedError(`The calls of ${workflowId} could not be read: ${read.unread}.`);
  const alreadyUndone = await readUndone(client.temporal, workflowId);
  const done = new Set(alreadyUndone.map((call) => call.callId));
  const calls: UndoCall[] = read.calls
    .filter(
      ({ wave, call }) =>
        call.ok && !done.has(call.id) && (options.toIteration === undefined || wave.iteration > options.toIteration),
    )
    .map(({ wave, call, tool }) => undoCallOf(wave.iteration, call, tool))
    .reverse();
  const input: UndoInput = {
    workflowId,
    ...(read.agent === undefined ? {} : { agent: read.agent }),
    calls,
    by: options.by,
    ...(options.skipIrreversible ? { skipIrreversible: true } : {}),
    ...(options.toIteration === undefined ? {} : { toIteration: options.toIteration }),
    undoneBefore: alreadyUndone,
  };
  if (options.dryRun || calls.length === 0) return { ...plan(input), dryRun: options.dryRun === true, alreadyUndone };

  if (!(await hasLiveWorker(client.temporal, client.taskQueue)))
    throw new UndoRefusedError(
      `No worker polls task queue "${client.taskQueue}", and an undo runs on a worker: start one (waveloop worker), then undo again. Nothing was undone.`,
      'no_worker',
    );
  const handle = await client.temporal.workflow.start(UNDO_WORKFLOW, {
    taskQueue: client.taskQueue,
    workflowId: undoWorkflowId(workflowId),
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    args: [input],
    staticSummary: `undo of ${workflowId} · by ${options.by}`,
  });
  if (options.wait === false)
    return {
      ...plan(input),
      undoId: handle.workflowId,
      undoRunId: handle.firstExecutionRunId,
      dryRun: false,
      running: true,
      alreadyUndone,
    };
  const result = await finished(handle, options.onWaiting);
  return { ...result, dryRun: false, alreadyUndone };
}

/** The undo's result, telling `onWaiting` of each approval it waits for meanwhile (asked every `WAITING_POLL_MS`). */
async function finished(handle: WorkflowHandle, onWaiting: UndoOptions['onWaiting']): Promise<UndoResult> {
  const result = handle.result() as Promise<UndoResult>;
  if (!onWaiting) return result;
  let done = false;
  const ended = result.then(
    () => (done = true),
    () => (done = true),
  );
  const told = new Set<string>();
  while (!done) {
    await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, WAITING_POLL_MS))]);
    if (done) break;
    const progress = await handle.query(statusQuery).catch(() => undefined);
    for (const decision of progress ? pendingOf({ workflowId: handle.workflowId }, progress) : [])
      if (decision.callId && !told.has(decision.callId)) {
        told.add(decision.callId);
        onWaiting(decision);
      }
  }
  return result;
}

/** What `undoRun` would do with `input`, as its result would say it, without running any undo. */
function plan(input: UndoInput): Omit<UndoReport, 'dryRun' | 'alreadyUndone'> {
  const report: Omit<UndoReport, 'dryRun' | 'alreadyUndone'> = {
    workflowId: input.workflowId,
    by: input.by,
    ...(input.toIteration === undefined ? {} : { toIteration: input.toIteration }),
    skipIrreversible: input.skipIrreversible ?? false,
    undone: [],
    cannotUndo: [],
    failed: [],
    denied: [],
    notReached: [],
    undoneSoFar: input.undoneBefore,
  };
  const entryOf = undoEntryOf;
  for (const [index, call] of input.calls.entries()) {
    if (call.undoable) report.undone.push(entryOf(call));
    else {
      report.cannotUndo.push(entryOf(call));
      if (input.skipIrreversible) continue;
      report.stoppedAt = entryOf(call);
      report.notReached = input.calls.slice(index + 1).map(entryOf);
      break;
    }
  }
  return report;
}
