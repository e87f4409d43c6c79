import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { followRun, type RunEvent, type RunReader } from '../client/follow';
import type { RunsClient } from '../client/runs';
import type { AgentLoopResult } from '../contract/agent-loop';
import { eventId, isAfter, parseEventId } from './event-ids';

/**
 * `GET /api/runs/{id}/events`: what `waveloop run` shows live, as Server-Sent Events. Each event is
 * a `RunEvent` of `runs.follow` (its `type` is the SSE event name, the whole event the data) with
 * an id from `event-ids.ts`. A client that reconnects with `Last-Event-ID` gets only the events after
 * that id. The stream ends with the `ended` event, always the last (its data carries the result),
 * or with a `failed` event (`{ failure }`) when the run failed; a client that reconnects after `end`
 * gets 204, which tells an `EventSource` to stop.
 */
export function runEventStream(
  c: Context,
  runs: RunsClient,
  workflowId: string,
  { lastEventId, stream }: { lastEventId?: string; stream: boolean },
): Response {
  const last = parseEventId(lastEventId);
  if (last?.kind === 'end') return c.body(null, 204);
  return streamSSE(c, async (sse) => {
    const closed = new AbortController();
    sse.onAbort(() => closed.abort(new Error('The client went away.')));
    // The iteration of the progress the follower read last: a question's, which it does not carry.
    let iteration = 0;
    const reader: RunReader = {
      progress: async (id, options) => {
        const progress = await runs.progress(id, options);
        iteration = progress.iteration;
        return progress;
      },
      modelCall: (id) => runs.modelCall(id),
    };
    const send = async (event: RunEvent) => {
      const id = eventId(event, iteration);
      if (!closed.signal.aborted && isAfter(id, last))
        await sse.writeSSE({ id, event: event.type, data: JSON.stringify(event) });
    };
    // The follower reports `ended` before the calls it had not reported yet: it is sent last here.
    let ended: RunEvent | undefined;
    const following = followRun(reader, workflowId, {
      stream,
      onEvent: async (event) => {
        if (event.type === 'ended') ended = event;
        else await send(event);
      },
    });
    let result: AgentLoopResult | undefined;
    let failure: string | undefined;
    try {
      result = await runs.result(workflowId, { signal: closed.signal });
    } catch (err) {
      if (!closed.signal.aborted) failure = failureOf(err);
    } finally {
      await following.stop(result);
    }
    if (ended) await send(ended);
    if (failure !== undefined && !closed.signal.aborted)
      await sse.writeSSE({ id: 'end', event: 'failed', data: JSON.stringify({ failure }) });
  });
}

/** Why a run failed, as `waveloop status` says it: the failure's type and message. */
function failureOf(err: unknown): string {
  const cause = err instanceof WorkflowFailedError ? err.cause : undefined;
  if (cause instanceof ApplicationFailure && cause.type) return `${cause.type}: ${cause.message}`;
  return cause?.message ?? 'The run did not complete.';
}
