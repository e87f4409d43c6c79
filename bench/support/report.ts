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
