import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { UndoCallInput } from '../contract/effects/undo';
import { FailureType } from '../contract/errors';
import { SETTINGS } from '../contract/settings/declarations';
import { ToolError } from '../tools/define';
import { withHeartbeats } from './heartbeat';
import type { Registry } from './registry';
import { parseToolArguments, registeredTool } from './tool-arguments';

/**
 * `undoCall`: reverses one call of a run by its tool's `undo` (docs/effects.md#undo), with the
 * call's arguments and result and a context whose `idempotencyKey` is
 * `<workflowId>/<toolCallId>/undo`, the same for every attempt. What `undo` returns comes back as
 * text (a string as is, another value as JSON). A `ToolError`, a tool this worker does not have or
 * one without `undo` fail at once; any other error is retried by the undo's retry policy.
 */
export function createUndoCall({ registry }: { registry: Registry }) {
  return async function undoCall(input: UndoCallInput): Promise<string> {
    const tool = registeredTool(registry, input.tool);
    if (!tool.undo)
      throw ApplicationFailure.create({
        type: FailureType.ToolError,
        message: `Tool "${tool.name}" has no undo on this worker.`,
        nonRetryable: true,
      });
    const args = parseToolArguments(tool, input.args);
    const context = Context.current();
    const toolContext = {
      signal: context.cancellationSignal,
      heartbeat: (details?: unknown) => context.heartbeat(details),
      idempotencyKey: `${input.workflowId}/${input.callId}/undo`,
      workflowId: input.workflowId,
      toolCallId: input.callId,
      startedBy: input.by,
    };
    try {
      const value = await withHeartbeats(async () => tool.undo!(args, input.result, toolContext));
      return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undone');
    } catch (err) {
      if (err instanceof ApplicationFailure) throw err;
      const error = err instanceof Error ? err : new Error(String(err));
      throw ApplicationFailure.create({
        type: err instanceof ToolError ? FailureType.ToolError : 'UndoFailed',
        message: error.message,
        nonRetryable: err instanceof ToolError,
        cause: error,
      });
    }
  };
}

/** What an undo learns of its worker when it starts (`undoSetup`). */
export interface UndoSetup {
  audit: boolean;
  searchAttributes: boolean;
  webhooks: string[];
  heartbeatSeconds: number;
}

/**
 * `undoSetup`: whether this worker keeps an audit trail, so an undo writes its record, whether the
 * namespace has waveloop's search attributes, so an undo keeps its `WaveloopStatus` current, and the
 * worker's webhooks (`WAVELOOP_WEBHOOKS`), which hear of an undo's waits for approval, and the
 * worker's `heartbeatSeconds`, how long a call's undo may go unheard of before it is tried again.
 */
export function createUndoSetup({
  audit,
  searchAttributes,
  defaults,
}: {
  audit?: unknown;
  searchAttributes?: () => Promise<boolean>;
  defaults?: { webhooks?: readonly string[]; heartbeatSeconds?: number };
}) {
  return async function undoSetup(): Promise<UndoSetup> {
    return {
      audit: audit !== undefined,
      searchAttributes: (await searchAttributes?.()) ?? false,
      webhooks: [...(defaults?.webhooks ?? [])],
      heartbeatSeconds: defaults?.heartbeatSeconds ?? SETTINGS.heartbeatSeconds.default,
    };
  };
}
