import { ApplicationFailure } from '@temporalio/common';
import type { AssistantMessage } from '../../contract/agent-loop';
import { FailureType } from '../../contract/errors';
import type { Planner } from '../../contract/plan';

/**
 * Refuses a model reply the loop cannot use, before it is recorded:
 * - `finish_reason: content_filter`: the endpoint withheld the reply; asking again gets the same, so
 *   the run ends with a non-retryable `ModelContentFiltered`.
 * - `finish_reason: length` on a native reply without tool calls: the answer was cut off at the
 *   output limit; the run ends with a non-retryable `ModelOutputTruncated` rather than completing with
 *   half an answer. (Tool calls cut off this way reach the wave, whose argument check sends the error
 *   back to the model; a cut-off JSON plan goes back to the model the same way.)
 * - an empty reply (no text, no tool calls): a retryable `ModelEmptyReply`, so the call is retried
 *   per the model activity's retry policy and the run fails `ModelUnavailable` if it persists.
 * A reply with both text and tool calls is fine: the calls run, the text is kept.
 */
export function checkReply(message: AssistantMessage, finishReason: string | null | undefined, planner: Planner): void {
  const hasCalls = (message.tool_calls?.length ?? 0) > 0;
  if (finishReason === 'content_filter') {
    throw ApplicationFailure.create({
      type: FailureType.ModelContentFiltered,
      message:
        "The model endpoint withheld its reply (finish_reason content_filter); the run's content was refused by the endpoint's filter.",
      nonRetryable: true,
    });
  }
  if (finishReason === 'length' && !hasCalls && planner === 'native') {
    throw ApplicationFailure.create({
      type: FailureType.ModelOutputTruncated,
      message:
        "The model's reply was cut off at its output limit (finish_reason length); allow the model more output tokens or ask for a shorter answer.",
      nonRetryable: true,
    });
  }
  if (!hasCalls && (message.content ?? '').trim() === '') {
    throw ApplicationFailure.create({
      type: FailureType.ModelEmptyReply,
      message: `The model replied with neither text nor tool calls (finish_reason ${finishReason ?? 'none'}).`,
    });
  }
}
