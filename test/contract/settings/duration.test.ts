import { describe, expect, it } from 'vitest';
import { durationMs, formatDuration } from '../../../src/contract/settings/duration';

describe('durations', () => {
  it('durationMs: milliseconds, seconds (also bare numbers), minutes, hours and days; anything else is undefined', () => {
    expect(['500ms', '90s', '90', ' 10m ', '1.5h', '3d', '0'].map(durationMs)).toEqual([
      500, 90_000, 90_000, 600_000, 5_400_000, 259_200_000, 0,
    ]);
    expect(['', '-1s', '10 minutes', '1w', 's', '1.2.3s'].map(durationMs)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('formatDuration: the largest whole unit, which durationMs reads back', () => {
    const cases = [3_600_000, 86_400_000, 90_000, 1_500, 7_200_000 + 60_000];
    expect(cases.map(formatDuration)).toEqual(['1h', '1d', '90s', '1500ms', '121m']);
    for (const ms of cases) expect(durationMs(formatDuration(ms))).toBe(ms);
  });
});
