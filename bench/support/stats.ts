import * as fs from 'node:fs';
import * as os from 'node:os';

/** The q-quantile (0..1) of `values`, by linear interpolation; NaN for none. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export const median = (values: readonly number[]) => quantile(values, 0.5);
export const p95 = (values: readonly number[]) => quantile(values, 0.95);

/** Gaps between consecutive arrivals: one per iteration after the first model call. */
export function gaps(arrivals: readonly number[]): number[] {
  return arrivals.slice(1).map((at, i) => at - arrivals[i]);
}

/** Rounds to `digits` decimals (for the report). */
export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function loadAverage(): string {
  return os
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(' / ');
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Tracks the peak RSS of this process while a scenario runs. */
export function rssSampler(everyMs = 250): { stop(): number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss);
    },
  };
}

/** CPU seconds a process has used so far, read from /proc (Linux); undefined elsewhere or when it is gone. */
function processCpuSeconds(pid: number): number | undefined {
  try {
    // The fields after the command name (which may hold spaces and parentheses): utime and stime are
    // the 12th and 13th, in clock ticks (USER_HZ, 100 a second on Linux).
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/**
 * CPU time (seconds) used by this process (the runner: worker, fake model, client) and by the
 * Temporal server between start and stop, with the wall time between them.
 */
export function cpuSampler(serverPid: number | undefined): {
  stop(): { wall: number; runner: number; server: number | undefined };
} {
  const wall = performance.now();
  const runner = process.cpuUsage();
  const server = serverPid === undefined ? undefined : processCpuSeconds(serverPid);
  return {
    stop() {
      const used = process.cpuUsage(runner);
      const serverNow = serverPid === undefined ? undefined : processCpuSeconds(serverPid);
      return {
        wall: (performance.now() - wall) / 1000,
        runner: (used.user + used.system) / 1e6,
        server: server === undefined || serverNow === undefined ? undefined : serverNow - server,
      };
    },
  };
}
