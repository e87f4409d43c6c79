import type { EvalCaseReport, EvalReport } from '../../contract/eval/eval';

/** A change in tokens or cost of more than this share counts (20 %). */
export const BASELINE_TOLERANCE = 0.2;

/** What changed from a baseline report to this one, for one case (matched by goal and agent). */
export interface BaselineChange {
  goal: string;
  /** `regressed`: passed before and fails now; `tokens` / `cost`: changed by more than 20 %. */
  kind: 'regressed' | 'tokens' | 'cost';
  before: number | boolean;
  now: number | boolean;
}

/**
 * The changes from `baseline` to `report`: every case that passed before and fails now, and every
 * change in tokens or cost over `BASELINE_TOLERANCE` either way. Cases are matched by goal and agent;
 * a case the baseline lacks is new and compared with nothing.
 */
export function compareWithBaseline(report: EvalReport, baseline: Pick<EvalReport, 'cases'>): BaselineChange[] {
  const key = (c: Pick<EvalCaseReport, 'goal' | 'agent'>) => `${c.agent ?? ''}\u0000${c.goal}`;
  const before = new Map(baseline.cases.map((c) => [key(c), c]));
  const changes: BaselineChange[] = [];
  for (const now of report.cases) {
    const then = before.get(key(now));
    if (!then) continue;
    if (then.passed && !now.passed) changes.push({ goal: now.goal, kind: 'regressed', before: true, now: false });
    if (changed(then.tokens, now.tokens))
      changes.push({ goal: now.goal, kind: 'tokens', before: then.tokens, now: now.tokens });
    if (changed(then.costUsd, now.costUsd))
      changes.push({ goal: now.goal, kind: 'cost', before: then.costUsd, now: now.costUsd });
  }
  return changes;
}

function changed(before: number, now: number): boolean {
  if (before === 0) return now !== 0;
  return Math.abs(now - before) / before > BASELINE_TOLERANCE;
}

/** The changes for a person, one a line. */
export function renderChanges(changes: readonly BaselineChange[]): string[] {
  if (changes.length === 0) return ['Against the baseline: no case regressed, no tokens or cost changed over 20 %.'];
  return [
    'Against the baseline:',
    ...changes.map((change) => {
      if (change.kind === 'regressed') return `  REGRESSED  ${change.goal}: passed before, fails now`;
      const [then, now] = [Number(change.before), Number(change.now)];
      const pct = then === 0 ? '' : ` (${now > then ? '+' : ''}${Math.round(((now - then) / then) * 100)} %)`;
      const show = (n: number) => (change.kind === 'cost' ? `$${n.toFixed(4)}` : n.toLocaleString('en-US'));
      return `  ${change.kind.toUpperCase().padEnd(9)}  ${change.goal}: ${show(then)} → ${show(now)}${pct}`;
    }),
  ];
}

/** Whether a change fails the comparison: a case that regressed, or tokens or cost that grew over 20 %. */
export function isRegression(change: BaselineChange): boolean {
  return change.kind === 'regressed' || Number(change.now) > Number(change.before);
}
