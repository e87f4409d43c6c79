import type { LogEntry, LogLevel, Worker } from '@temporalio/worker';
import type { LoadedProject } from '../project/load-project';
import type { WaveloopSettings } from '../settings';
import type { WorkerTuning } from '../worker/tuning';
import { io } from './io';

/** The CLI commands that run a worker. */
export type WorkerCommand = 'run' | 'goal' | 'dev' | 'worker';

/**
 * The project's worker for a CLI command (`createProjectWorker`), in a process whose Temporal
 * runtime logs the CLI's way: to stderr, one line an entry, only warnings unless WAVELOOP_LOG_LEVEL
 * says otherwise, so stdout carries just what the command prints (and stays parseable with
 * --json). `dev` and `worker` serve Prometheus metrics when WAVELOOP_METRICS_ADDRESS says where.
 * The worker packages load on the first call: a command that runs no worker never loads them.
 */
export async function createCliWorker(
  command: WorkerCommand,
  config: WaveloopSettings,
  project: LoadedProject,
  tuning?: WorkerTuning,
): Promise<{ worker: Worker; close: () => Promise<void> }> {
  const [{ DefaultLogger, Runtime }, { installRuntime, metricsAddressFromEnv }, { createProjectWorker }] =
    await Promise.all([import('@temporalio/worker'), import('../telemetry/metrics-runtime'), import('../worker')]);
  if (!Runtime._instance) {
    const level = (io().env.WAVELOOP_LOG_LEVEL?.toUpperCase() ?? 'WARN') as LogLevel;
    const serveMetrics = command === 'dev' || command === 'worker';
    const { stderr } = io();
    installRuntime(
      { logger: new DefaultLogger(level, (entry) => stderr.write(`${formatLogEntry(entry)}\n`)) },
      serveMetrics ? metricsAddressFromEnv(io().env) : undefined,
    );
  }
  return createProjectWorker(config, project, tuning);
}

/** `<time> [LEVEL] <message> (<workflow or activity>): <error>`, one line a log entry. */
function formatLogEntry(entry: LogEntry): string {
  const meta = (entry.meta ?? {}) as Record<string, unknown>;
  const where = [meta.workflowId, meta.activityType].filter(Boolean).join(' ');
  const error = meta.error instanceof Error ? meta.error.message : meta.failure ? String(meta.failure) : '';
  const time = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
  return `${time} [${entry.level}] ${entry.message}${where ? ` (${where})` : ''}${error ? `: ${error}` : ''}`;
}
