/**
 * A decision (`answer`, `approve`, `deny`, `send`, `end`) that no worker took: the run's workflow
 * code runs on a worker, and only a worker can accept a decision.
 *
 * - `sent` false: no worker polls the run's task queue, so nothing was sent and the run is as it
 *   was; it waits on, and the decision can be made again once a worker runs.
 * - `sent` true: a worker had polled the task queue a moment ago (a worker that has just stopped
 *   still counts for `LIVE_POLLER_WINDOW_MS`), so the decision was sent, but no worker took it
 *   within `waitedMs`. The run's history does not have it. The server holds it in memory: a worker
 *   that takes the run up soon still applies it, but it is lost if the server restarts first.
 */
export class NoWorkerError extends Error {
  override readonly name = 'NoWorkerError';
  /** Whether the decision was sent (and may still reach the run); false: nothing was sent. */
  readonly sent: boolean;

  constructor(
    readonly workflowId: string,
    /** The run's task queue, which a worker must poll. */
    readonly taskQueue: string,
    /** How long the decision waited for a worker, when it was sent. */
    readonly waitedMs?: number,
  ) {
    super(
      waitedMs === undefined
        ? `No worker polls task queue "${taskQueue}", so run ${workflowId} cannot take the decision now: nothing was sent, and the run waits on.`
        : `No worker took the decision within ${Math.round(waitedMs / 1000)} s (task queue "${taskQueue}"): it may still reach run ${workflowId} if a worker takes the run up soon, or be lost.`,
    );
    this.sent = waitedMs !== undefined;
  }
}
