import type { RunStatus, Usage, WaveRecord } from '../agent-loop';
import type { HeldBackCall } from '../effects/dry-run';

/**
 * The contract of evals: the `evalRun` workflow's input and its report, and the report's summary.
 * Free of zod on purpose: workflow code imports it (the dataset's schema is `src/cli/eval/dataset.ts`).
 */

export const EVAL_WORKFLOW = 'evalRun';

/** What a case expects of its run; each key is one scorer (a custom scorer's name takes its own value). */
export interface EvalExpect {
  /** The answer contains this text (or each of these), ignoring case. */
  contains?: string | string[];
  /** The answer is exactly this text (trimmed). */
  equals?: string;
  /** The run's typed output holds these fields with these values (a JSON subset match). */
  output?: unknown;
  /** These tools were called: names, or `{ name, args }` whose args hold these values. */
  toolsCalled?: Array<string | { name: string; args?: Record<string, unknown> }>;
  /** The run took at most this many iterations. */
  maxIterations?: number;
  /** The run spent at most this many tokens. */
  maxTokens?: number;
  /** The run ended so (default `completed`; `failed` for a run that should fail). */
  status?: RunStatus | 'failed';
  /** A model judges the answer by these criteria, at the run's endpoint. */
  judge?: string;
  /** Custom scorers' values, by scorer name. */
  [scorer: string]: unknown;
}

/** One line of a dataset. */
export interface EvalCase {
  goal: string;
  expect?: EvalExpect;
  /** The agent of this case (over the eval's `--agent`). */
  agent?: string;
  tags?: string[];
}

/** What `evalRun` takes: the cases and how to run them. */
export interface EvalInput {
  /** The eval's name: every case's run carries it as its `WaveloopEval` search attribute. */
  name: string;
  cases: EvalCase[];
  /** Cases that run at once (default 4). */
  concurrency?: number;
  /** The agent of the cases that name none. */
  agent?: string;
  /** The model of every case. */
  model?: string;
  /** Set when the model calls were answered from recorded replies (`waveloop eval --replay`), for the report. */
  replayOf?: string;
  /** Every case runs as a dry run (`waveloop eval --dry-run`): only `read` tools run (docs/effects.md#dry-runs). */
  dryRun?: boolean;
}

/** Cases that run at once when the eval does not say. */
export const DEFAULT_EVAL_CONCURRENCY = 4;

/** One scorer's verdict on a case. */
export interface Score {
  pass: boolean;
  /** Why, when it failed (or what it judged by, for the judge). */
  detail?: string;
}

/** What the scoring activity is given: the case and how its run ended. */
export interface ScoreCaseInput {
  case: EvalCase;
  workflowId: string;
  /** The run's result; absent when it failed. */
  result?: EvalRunResult;
  /** Why the run failed, when it did. */
  failure?: string;
  /** The model the eval asked for, if any (for the judge and the cost). */
  model?: string;
  agent?: string;
  /** Whether the model calls are replayed (`--replay`): the judge is not asked then. */
  replay?: boolean;
}

/** The parts of a run's result that scorers read. */
export interface EvalRunResult {
  status: RunStatus;
  answer: string;
  iterations: number;
  waves: WaveRecord[];
  usage: Usage;
  output?: unknown;
}

/** What the scoring activity returns. */
export interface ScoreCaseOutput {
  scores: Record<string, Score>;
  costUsd: number;
}

/** A case in the report. */
export interface EvalCaseReport {
  goal: string;
  agent?: string;
  tags?: string[];
  passed: boolean;
  scores: Record<string, Score>;
  workflowId: string;
  /** How the run ended: its status, or `failed`. */
  status: RunStatus | 'failed';
  answer?: string;
  iterations: number;
  tokens: number;
  costUsd: number;
  /** From the case's start to its end, by the workflow's clock. */
  ms: number;
  /** In a dry eval: the calls the case's run held back. */
  heldBack?: HeldBackCall[];
}

export interface EvalSummary {
  cases: number;
  passed: number;
  /** passed / cases, 0 to 1. */
  passRate: number;
  tokens: number;
  costUsd: number;
  p50Ms: number;
  p95Ms: number;
}

/** The report of an eval: `evalRun`'s result, and what `waveloop eval --json` prints. */
export interface EvalReport {
  name: string;
  /** The eval workflow's id. */
  workflowId: string;
  /** The report whose recorded replies answered the model calls, with `--replay`. */
  replayOf?: string;
  /** Set when every case ran as a dry run (`--dry-run`). */
  dryRun?: true;
  cases: EvalCaseReport[];
  summary: EvalSummary;
}

/** The summary of `cases`: pass rate, tokens, cost, and the 50th and 95th percentile of their times. */
export function summarizeCases(cases: readonly EvalCaseReport[]): EvalSummary {
  const passed = cases.filter((c) => c.passed).length;
  const times = cases.map((c) => c.ms).sort((a, b) => a - b);
  return {
    cases: cases.length,
    passed,
    passRate: cases.length ? passed / cases.length : 0,
    tokens: cases.reduce((sum, c) => sum + c.tokens, 0),
    costUsd: cases.reduce((sum, c) => sum + c.costUsd, 0),
    p50Ms: percentile(times, 0.5),
    p95Ms: percentile(times, 0.95),
  };
}

/** The nearest-rank percentile `p` (0 to 1) of sorted `values` (0 when there are none). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}
