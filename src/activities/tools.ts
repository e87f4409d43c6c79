import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ToolCallInput, ToolCallOutput } from '../contract/activity-io';
import { FailureType } from '../contract/errors';
import type { BlobStore } from '../payloads/blob-store';
import { ToolError } from '../tools/define';
import { approvalRuleOf, askApprovalRule } from './approval-rule';
import { withHeartbeats } from './heartbeat';
import type { Registry } from './registry';
import { parseToolArguments, registeredTool } from './tool-arguments';
import { resultForTranscript } from './tool-result';
import type { ToolResultCache } from './tool-result-cache';

/**
 * One tool call of a wave. Arguments are validated against the tool's zod schema first (a
 * mismatch is a non-retryable `InvalidToolArguments` the model gets to read); a `ToolError` is
 * non-retryable too; any other error is retried per the tool's retry policy. A result longer than
 * `TOOL_RESULT_MAX_CHARS` reaches the model truncated, with a note (see `resultForTranscript`).
 * With `approvalRule`, the tool's approval rule is asked first, in the same activity, so a call
 * that needs no approval costs nothing more; one that does returns `needsApproval` without running.
 */
export function createRunTool({
  registry,
  blobStore,
  toolResults,
}: {
  registry: Registry;
  blobStore?: BlobStore;
  toolResults?: ToolResultCache;
}) {
  return async function runTool(input: ToolCallInput): Promise<ToolCallOutput> {
    const tool = registeredTool(registry, input.name);
    const args = parseToolArguments(tool, input.args);
    if (input.approvalRule) {
      const { agent } = input.approvalRule;
      const rule = approvalRuleOf(registry, agent, tool.name);
      const verdict = await askApprovalRule(rule, args, { workflowId: input.workflowId, agent, tool: tool.name });
      if (verdict) return { needsApproval: verdict };
    }

    const context = Context.current();
    const value = await withHeartbeats(async () => {
      try {
        return await tool.execute(args, {
          signal: context.cancellationSignal,
          heartbeat: (details) => context.heartbeat(details),
          idempotencyKey: `${input.workflowId}/${input.toolCallId}`,
          workflowId: input.workflowId,
          toolCallId: input.toolCallId,
        });
      } catch (err) {
        if (err instanceof ApplicationFailure) throw err;
        const error = err instanceof Error ? err : new Error(String(err));
        throw ApplicationFailure.create({
          type: err instanceof ToolError ? FailureType.ToolError : 'ToolFailed',
          message: error.message,
          nonRetryable: err instanceof ToolError,
          cause: error,
        });
      }
    });
    const content =
      editNote(input) +
      resultForTranscript(typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null'), blobStore);
    // Kept for the run's next model call on this worker, which then gets only a reference to it.
    const runId = context.info.workflowExecution?.runId;
    if (runId) toolResults?.remember(input.workflowId, runId, input.toolCallId, content);
    return { content };
  };
}

/** Tells the model that a person changed the call's arguments before approving it, and to what. */
function editNote({ args, originalArgs }: ToolCallInput): string {
  if (!originalArgs) return '';
  return `(A person approved this call with changed arguments: ${JSON.stringify(args)} instead of ${JSON.stringify(originalArgs)}.)\n`;
}
