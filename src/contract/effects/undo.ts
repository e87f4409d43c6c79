/**
 * Undo (docs/effects.md#undo): a workflow of its own, `undoRun`, reverses the calls of an agent run
 * that changed something, later calls first, each by its tool's `undo`. No zod and no I/O here:
 * workflow code imports it.
 */

import { maskArgs } from '../sensitive';

/** The workflow type of an undo. */
export const UNDO_WORKFLOW = 'undoRun';

/**
 * The workflow id of the undos of run `workflowId`: one id for all of them, so that only one runs at
 * a time, and each new one finds the last one's result (what was undone so far) under it.
 */
export function undoWorkflowId(workflowId: string): string {
  return `undo:${workflowId}`;
}

/** One call to undo, as the client found it in the run's waves. */
export interface UndoCall {
  iteration: number;
  /** The model's tool call id. */
  callId: string;
  tool: string;
  /** The arguments the call ran with, in clear: the tool's `undo` gets them. */
  args: Record<string, unknown>;
  /** What the call returned (the text the model read). */
  result: string;
  /** Whether the tool had an `undo` when the run started; a call whose tool had none cannot be undone. */
  undoable: boolean;
  /** Parameters shown masked in the undo's result and audit record. */
  sensitive?: string[];
  /** The tool's attempt timeout and retries, which its undo's activity takes too. */
  timeoutSeconds: number;
  retry: {
    maximumAttempts: number;
    initialIntervalSeconds: number;
    backoffCoefficient: number;
    maximumIntervalSeconds: number;
  };
  /**
   * Set when the call waited for approval in its run: its undo waits for approval too, with the
   * tool's deadline and what happens at it (`ToolApproval`), before it runs.
   */
  needsApproval?: { timeoutSeconds?: number; onTimeout: 'deny' | 'approve' };
}

/** A call an earlier undo of the run reversed: never undone again. */
export interface UndoneCall {
  callId: string;
  tool: string;
  iteration: number;
  /** Who asked for that undo. */
  by: string;
  /** The undo workflow's execution (`undo:<run>` and its run id). */
  undoRunId: string;
  /** When its undo completed (the undo's own time). */
  at: string;
  /** Who approved the undo, when it waited for approval. */
  approvedBy?: string[];
}

/** The input of `undoRun`. */
export interface UndoInput {
  /** The agent run whose calls are undone. */
  workflowId: string;
  /** The run's agent, whose approval rules an undo that waits for approval asks who may decide it. */
  agent?: string;
  /** The calls to undo, in the order to undo them: later iterations first, then reverse call order. */
  calls: UndoCall[];
  /** Who asked for the undo. */
  by: string;
  /** Go past a call whose tool has no `undo` instead of stopping there. */
  skipIrreversible?: boolean;
  /** Only calls of iterations after this one were chosen (iteration N itself is kept). */
  toIteration?: number;
  /** What earlier undos of the run reversed, carried on in this one's result. */
  undoneBefore: UndoneCall[];
}

/** One call in an undo's result, its arguments masked. */
export interface UndoEntry {
  iteration: number;
  callId: string;
  tool: string;
  args: Record<string, unknown>;
  /** What the call had returned. */
  result: string;
  /** What the tool's `undo` returned, for a call undone. */
  undoResult?: string;
  /** Why its undo failed (after its retries). */
  error?: string;
  /** Who approved its undo, for a call whose undo waited for approval. */
  approvedBy?: string[];
  /** Who denied its undo, and why (`timeout` when its deadline denied it): the call was not undone. */
  denied?: { by: string; reason: string };
}

/** What an undo did. */
export interface UndoResult {
  /** The agent run undone. */
  workflowId: string;
  /** This undo's execution: `undo:<run>` and its run id. */
  undoId: string;
  undoRunId: string;
  by: string;
  toIteration?: number;
  skipIrreversible: boolean;
  /** The calls undone, in the order they were. */
  undone: UndoEntry[];
  /** The calls whose tool has no `undo`: passed by (`skipIrreversible`) or the one the undo stopped at. */
  cannotUndo: UndoEntry[];
  /** The calls whose undo failed after its retries. */
  failed: UndoEntry[];
  /** The calls whose undo waited for approval and was denied (each with `denied`): not undone. */
  denied: UndoEntry[];
  /** The calls not tried because the undo stopped at a call that cannot be undone. */
  notReached: UndoEntry[];
  /** The call the undo stopped at, when it did. */
  stoppedAt?: UndoEntry;
  /** Every call undone so far, by this undo and the ones before it. */
  undoneSoFar: UndoneCall[];
}

/** `undoCall`: one call's undo, by the tool's `undo`, on a worker. */
export interface UndoCallInput {
  workflowId: string;
  callId: string;
  tool: string;
  args: Record<string, unknown>;
  result: string;
  /** Who asked for the undo (the tool's context's `startedBy`). */
  by: string;
}

/** The call as an undo's result shows it: its arguments masked. */
export function undoEntryOf(call: UndoCall): UndoEntry {
  return {
    iteration: call.iteration,
    callId: call.callId,
    tool: call.tool,
    args: maskArgs(call.args, call.sensitive),
    result: call.result,
  };
}
