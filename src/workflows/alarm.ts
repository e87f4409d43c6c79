import { CancellationScope, sleep } from '@temporalio/workflow';

/**
 * A check that turns true once `at` (epoch ms) has passed, by a durable timer: its firing is an
 * event of the history, so a replay sees it at the same point, where comparing `Date.now()` with
 * `at` could decide otherwise on a worker that took the run over. A time over before the workflow started (`startedAt`, from its start event) is
 * over at once. Otherwise the timer starts in every case, since a replay must issue the same
 * command: one over since (the workflow waited for a worker) gets 1 ms; the duration itself is not
 * compared on replay. The timer is not cancelled with the workflow, which ends without waiting for it.
 */
export function alarm(at: number, startedAt: number): () => boolean {
  if (at <= startedAt) return () => true;
  let rang = false;
  CancellationScope.nonCancellable(() => sleep(Math.max(1, at - Date.now()))).then(
    () => (rang = true),
    () => undefined,
  );
  return () => rang;
}
