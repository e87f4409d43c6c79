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
  return os.loadavg().map((v) => v.toFixed(2)).join(' / ');
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
