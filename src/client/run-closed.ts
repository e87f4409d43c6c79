import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { grpcErrorOf, GrpcStatus } from '../temporal/grpc-status';

/**
 * Waits until the latest run of `workflowId` has closed (following the runs it continued as new,
 * or retried into), by long polls of its history's close event, as Temporal's `result()` does; stops
 * when `signal` aborts, and throws its reason.
 *
 * Each long poll lasts up to the server's long-poll interval (20 s by default), so a wait of days
 * makes thousands of them. Temporal's client adds a listener to the abort signal of
 * `withAbortSignal` for each call made in its scope and never removes it: `result()` under one
 * signal would add one a poll (Node warns from the 11th, MaxListenersExceededWarning, and each
 * keeps its call). Here each poll has a signal of its own, and its listener on `signal` is removed
 * once the poll is answered.
 */
export async function waitUntilClosed(client: Client, workflowId: string, signal: AbortSignal): Promise<void> {
  const { HistoryEventFilterType } = temporal.api.enums.v1;
  const execution: { workflowId: string; runId?: string } = { workflowId };
  let nextPageToken: Uint8Array | undefined;
  for (;;) {
    signal.throwIfAborted();
    const response = await withOwnSignal(client, signal, () =>
      client.workflowService.getWorkflowExecutionHistory({
        namespace: client.options.namespace,
        execution,
        skipArchival: true,
        waitNewEvent: true,
        historyEventFilterType: HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT,
        nextPageToken,
      }),
    ).catch((err: unknown) => {
      if (signal.aborted) throw signal.reason;
      const grpc = grpcErrorOf(err);
      if (grpc?.code === GrpcStatus.NOT_FOUND)
        throw new WorkflowNotFoundError(grpc.details ?? 'Workflow not found', workflowId, execution.runId);
      throw err;
    });
    const closed = response.history?.events?.[0];
    if (!closed) {
      // The long poll ended with the run still open: poll again.
      nextPageToken = response.nextPageToken ?? undefined;
      continue;
    }
    const next =
      closed.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ??
      closed.workflowExecutionCompletedEventAttributes?.newExecutionRunId ??
      closed.workflowExecutionFailedEventAttributes?.newExecutionRunId ??
      closed.workflowExecutionTimedOutEventAttributes?.newExecutionRunId;
    if (!next) return;
    execution.runId = next;
    nextPageToken = undefined;
  }
}

/** Runs `call` (one gRPC call) under an abort signal of its own that `signal` aborts while it runs. */
async function withOwnSignal<T>(client: Client, signal: AbortSignal, call: () => Promise<T>): Promise<T> {
  const own = new AbortController();
  const abort = () => own.abort(signal.reason);
  signal.addEventListener('abort', abort, { once: true });
  try {
    return await client.withAbortSignal(own.signal, call);
  } finally {
    signal.removeEventListener('abort', abort);
  }
}
