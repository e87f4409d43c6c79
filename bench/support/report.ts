/** What one scenario hands to the report: a table, its targets, notes, and raw figures for the JSON file. */
export interface ScenarioResult {
  id: number;
  title: string;
  /** The sizes that were run (e.g. "2 runs × 100 iterations"). */
  sizes: string;
  table: { head: string[]; rows: Array<Array<string | number>> };
  /** `met`: whether the measured value meets the target; 'no threshold' for a figure measured without a bound. */
  targets: Array<{ target: string; value: string; met: boolean | 'no threshold' }>;
  notes: string[];
  data: unknown;
}

/** A run's report: its machine and its scenarios' results (bench/results*.json). */
export type Report = { machine: Record<string, unknown>; results: ScenarioResult[] };

/**
 * The large sizes after `run`: its scenarios, and those of `earlier` it did not run, each of these
 * with a note of the run it comes from. The machine is `run`'s.
 */
export function mergeLarge(earlier: Report | undefined, run: Report): Report {
  if (!earlier) return run;
  const ran = new Set(run.results.map((r) => r.id));
  const from = `From the run of ${String(earlier.machine.date ?? 'unknown')} at ${String(earlier.machine.commit)}.`;
  const kept = earlier.results
    .filter((r) => !ran.has(r.id))
    .map((r) => (r.notes.some((note) => note.startsWith('From the run of')) ? r : { ...r, notes: [...r.notes, from] }));
  return { ...run, results: [...kept, ...run.results].sort((a, b) => a.id - b.id) };
}

export function markdownTable(head: string[], rows: Array<Array<string | number>>): string {
  const line = (cells: Array<string | number>) => `| ${cells.map(String).join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

/** A number of milliseconds for the report. */
export function ms(value: number, digits = 1): string {
  return Number.isFinite(value) ? `${value.toFixed(digits)} ms` : '–';
}

export function ratio(value: number, digits = 2): string {
  return Number.isFinite(value) ? `${value.toFixed(digits)}×` : '–';
}
