import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { GrpcStatus, isGrpcStatus } from './grpc-status';

/** The first pause before an update is sent again; each next pause doubles, up to `MAX_PAUSE_MS`. */
const FIRST_PAUSE_MS = 100;
const MAX_PAUSE_MS = 1_000;

/**
 * Sends a workflow update by `send(updateId)`, under one update id, and sends it again while the
 * server answers that the workflow task that took it failed (gRPC FAILED_PRECONDITION: "Unable to
 * perform workflow execution update due to unexpected workflow task failure"). The server answers
 * so when it refuses the workflow task's completion, for example because an event (an activity's
 * result, a signal) came in while the workflow completed: the update is then not in the history,
 * the workflow runs on from where it was, and the same update sent again is taken by the next task.
 * Until `deadline` (epoch ms); after it, or on any other error, the error is thrown as is.
 */
export async function deliverUpdate<T>(send: (updateId: string) => Promise<T>, deadline: number): Promise<T> {
  const updateId = randomUUID();
  for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
    try {
      return await send(updateId);
    } catch (err) {
      if (!isGrpcStatus(err, GrpcStatus.FAILED_PRECONDITION) || Date.now() + pause >= deadline) throw err;
      await sleep(pause);
    }
  }
}
