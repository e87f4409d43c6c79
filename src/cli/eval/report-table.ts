import type { EvalReport } from '../../contract/eval/eval';
import { alignColumns } from '../ui/table';

/**
 * An eval's report for a person: one line a case (pass or FAIL per scorer, iterations, tokens,
 * cost, time), what failed and why under it, and the summary line.
 */
export function renderReport(report: EvalReport): string[] {
  const scorers = [...new Set(report.cases.flatMap((c) => Object.keys(c.scores)))];
  const rows = report.cases.map((c, i) => [
    String(i + 1),
    c.passed ? 'pass' : 'FAIL',
    ...scorers.map((name) => (c.scores[name] ? (c.scores[name].pass ? 'pass' : 'FAIL') : '-')),
    String(c.iterations),
    c.tokens.toLocaleString('en-US'),
    usd(c.costUsd),
    seconds(c.ms),
    clip(c.goal, 48),
  ]);
  const header = ['#', 'CASE', ...scorers, 'ITER', 'TOKENS', 'COST', 'TIME', 'GOAL'];
  const why = report.cases.flatMap((c, i) =>
    Object.entries(c.scores)
      .filter(([, score]) => !score.pass || score.detail?.startsWith('judged by'))
      .map(([name, score]) => `  ${i + 1} · ${name}: ${score.detail ?? 'failed'}`),
  );
  const { summary } = report;
  return [
    `Eval ${report.name}${report.replayOf ? ` (model replies replayed from ${report.replayOf})` : ''}` +
      (report.dryRun
        ? ` · DRY RUN: ${report.cases.reduce((n, c) => n + (c.heldBack?.length ?? 0), 0)} calls held back`
        : ''),
    ...alignColumns([header, ...rows]),
    ...(why.length ? ['', ...why] : []),
    '',
    `${summary.passed} of ${summary.cases} cases passed (${Math.round(summary.passRate * 100)} %) · ` +
      `${summary.tokens.toLocaleString('en-US')} tokens · ${usd(summary.costUsd)} · ` +
      `p50 ${seconds(summary.p50Ms)} · p95 ${seconds(summary.p95Ms)}`,
  ];
}

export function usd(amount: number): string {
  return `$${amount.toFixed(4)}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
