/** Milliseconds in each unit a duration may have. */
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * The milliseconds in a duration such as `500ms`, `90s`, `10m`, `1.5h` or `3d` (a bare number is
 * seconds), or undefined when `text` is not one.
 */
export function durationMs(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/.exec(text.trim());
  if (!match) return undefined;
  return Math.round(Number(match[1]) * UNIT_MS[(match[2] ?? 's') as keyof typeof UNIT_MS]);
}

/** A duration in its largest whole unit, as `durationMs` reads it back: 3600000 → `1h`. */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    if (ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return `${ms}ms`;
}
