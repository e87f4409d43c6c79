import { describe, expect, it } from 'vitest';
import { mergeLarge, type Report, type ScenarioResult } from '../../bench/support/report';

const result = (id: number, figure: string): ScenarioResult => ({
  id,
  title: `scenario ${id}`,
  sizes: 'large',
  table: { head: ['figure'], rows: [[figure]] },
  targets: [],
  notes: [],
  data: {},
});
const report = (date: string, commit: string, results: ScenarioResult[]): Report => ({
  machine: { date, commit },
  results,
});

describe('mergeLarge: the large sizes after a BENCH_FULL=1 BENCH_ONLY run', () => {
  it("the run's scenarios replace their earlier figures; the others stay, each saying which run it is from, in scenario order", () => {
    const earlier = report('2026-11-27 10:00', 'aaa1111', [result(4, 'old 4'), result(5, 'old 5')]);
    const merged = mergeLarge(
      earlier,
      report('2026-11-28 12:00', 'bbb2222', [result(15, 'new 15'), result(4, 'new 4')]),
    );
    expect(merged.machine).toEqual({ date: '2026-11-28 12:00', commit: 'bbb2222' });
    expect(merged.results.map((r) => [r.id, r.table.rows[0]![0], r.notes])).toEqual([
      [4, 'new 4', []],
      [5, 'old 5', ['From the run of 2026-11-27 10:00 at aaa1111.']],
      [15, 'new 15', []],
    ]);
  });

  it('a scenario kept through two runs says the run it was measured in, once', () => {
    const first = report('2026-11-26 09:00', 'ccc3333', [result(5, 'five')]);
    const second = mergeLarge(first, report('2026-11-27 10:00', 'aaa1111', [result(4, 'four')]));
    const third = mergeLarge(second, report('2026-11-28 12:00', 'bbb2222', [result(15, 'fifteen')]));
    expect(third.results.find((r) => r.id === 5)?.notes).toEqual(['From the run of 2026-11-26 09:00 at ccc3333.']);
    expect(third.results.find((r) => r.id === 4)?.notes).toEqual(['From the run of 2026-11-27 10:00 at aaa1111.']);
  });

  it('with no earlier large sizes, the run is the large sizes', () => {
    const run = report('2026-11-28 12:00', 'bbb2222', [result(15, 'fifteen')]);
    expect(mergeLarge(undefined, run)).toBe(run);
  });
});
