import type { Client } from '@temporalio/client';
import type { MetricMeter } from '@temporalio/common';
import { WAVELOOP_STATUS } from '../contract/search-attributes';
import { Metric } from './workflow/metric-names';

/** How often a worker counts the runs waiting for an approval. */
export const APPROVALS_REFRESH_MS = 15_000;

export interface ApprovalsGaugeOptions {
  client: Client;
  namespace: string;
  taskQueue: string;
  meter: MetricMeter;
  /** Whether the namespace has waveloop's search attributes (without them nothing can be counted). */
  searchAttributes: () => Promise<boolean>;
  everyMs?: number;
}

/**
 * Keeps `waveloop_runs_waiting_for_approval` current: the runs of the task queue whose status is
 * `waiting_for_approval`, as the server's visibility counts them (the `WaveloopStatus` search
 * attribute the runs keep), now and every `everyMs`. Counted by the server, it is right after
 * crashes and across workers: every worker of the queue reports the same number (aggregate with
 * `max`). Without the search attributes it reports nothing; a failed count keeps the last value.
 */
export function watchApprovals({
  client,
  namespace,
  taskQueue,
  meter,
  searchAttributes,
  everyMs = APPROVALS_REFRESH_MS,
}: ApprovalsGaugeOptions): { stop(): void } {
  const gauge = meter.createGauge(
    Metric.runsWaitingForApproval.name,
    'int',
    undefined,
    Metric.runsWaitingForApproval.description,
  );
  const query = `${WAVELOOP_STATUS.name} = "waiting_for_approval" AND TaskQueue = ${JSON.stringify(taskQueue)} AND ExecutionStatus = "Running"`;
  let stopped = false;
  const refresh = async () => {
    try {
      if (!(await searchAttributes())) return;
      const { count } = await client.workflow.count(query);
      if (!stopped) gauge.set(count, { namespace, taskQueue });
    } catch {
      // The server was unreachable or busy: the gauge keeps its value until the next count.
    }
  };
  void refresh();
  const timer = setInterval(() => void refresh(), everyMs);
  timer.unref();
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
