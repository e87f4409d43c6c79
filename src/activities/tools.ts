import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ToolCallInput, ToolCallOutput } from '../contract/activity-io';
import { FailureType } from '../contract/errors';
import { describeIssues } from '../contract/issues';
import type { BlobStore } from '../payloads/blob-store';
import { ToolError } from '../tools/define';
import { withHeartbeats } from './heartbeat';
import type { Registry } from './registry';
import { resultForTranscript } from './tool-result';
import type { ToolResultCache } from './tool-result-cache';

/**
 * One tool call of a wave. Arguments are validated against the tool's zod schema first (a
 * mismatch is a non-retryable `InvalidToolArguments` the model gets to read); a `ToolError` is
 * non-retryable too; any other error is retried per the tool's retry policy. A result longer than
 * `TOOL_RESULT_MAX_CHARS` reaches the model truncated, with a note (see `resultForTranscript`).
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
    const tool = registry.tools.get(input.name);
    if (!tool) {
      throw ApplicationFailure.create({
        type: FailureType.ToolError,
        message: `Tool "${input.name}" is not registered on this worker.`,
        nonRetryable: true,
      });
    }
    const parsed = tool.parameters.safeParse(input.args);
    if (!parsed.success) {
      throw ApplicationFailure.create({
        type: FailureType.InvalidToolArguments,
        message: `Invalid arguments for ${tool.name}: ${describeIssues(parsed.error.issues, 'arguments')}`,
        nonRetryable: true,
      });
    }

    const context = Context.current();
    const value = await withHeartbeats(async () => {
      try {
        return await tool.execute(parsed.data, {
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
    const content = resultForTranscript(
      typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null'),
      blobStore,
    );
    // Kept for the run's next model call on this worker, which then gets only a reference to it.
    const runId = context.info.workflowExecution?.runId;
    if (runId) toolResults?.remember(input.workflowId, runId, input.toolCallId, content);
    return { content };
  };
}
