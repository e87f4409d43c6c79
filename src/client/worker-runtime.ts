import { DefaultLogger, type LogEntry, type LogLevel } from '@temporalio/worker';
import { installRuntime, metricsAddressFromEnv } from '../telemetry/metrics-runtime';

/**
 * The runtime of a CLI command that runs a worker (`run`, `goal`, `dev`, `worker`). The worker's
 * log goes to stderr, and only warnings unless WAVELOOP_LOG_LEVEL says otherwise, so stdout carries
 * just what the command prints (and stays parseable with --json). `dev` and `worker` serve
 * Prometheus metrics when WAVELOOP_METRICS_ADDRESS says where.
 */
export function installWorkerRuntime(command: 'run' | 'goal' | 'dev' | 'worker'): void {
  const level = (process.env.WAVELOOP_LOG_LEVEL?.toUpperCase() ?? 'WARN') as LogLevel;
  const serveMetrics = command === 'dev' || command === 'worker';
  installRuntime(
    { logger: new DefaultLogger(level, (entry) => process.stderr.write(`${formatLogEntry(entry)}\n`)) },
    serveMetrics ? metricsAddressFromEnv() : undefined,
  );
}

/** `<time> [LEVEL] <message> (<workflow or activity>): <error>`, one line a log entry. */
function formatLogEntry(entry: LogEntry): string {
  const meta = (entry.meta ?? {}) as Record<string, unknown>;
  const where = [meta.workflowId, meta.activityType].filter(Boolean).join(' ');
  const error = meta.error instanceof Error ? meta.error.message : meta.failure ? String(meta.failure) : '';
  const time = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
  return `${time} [${entry.level}] ${entry.message}${where ? ` (${where})` : ''}${error ? `: ${error}` : ''}`;
}
