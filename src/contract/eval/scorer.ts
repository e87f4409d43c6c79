import type { EvalCase, EvalRunResult, Score } from './eval';

/** What a scorer reads: the case, and how its run ended (`result` absent when the run failed). */
export interface ScoredRun {
  case: EvalCase;
  workflowId: string;
  result?: EvalRunResult;
  /** Why the run failed, when it did. */
  failure?: string;
}

/**
 * A scorer of your own, declared in the project config (`scorers`): the worker that runs the eval
 * calls `score` for every case, in the scoring activity, so it may call out (a database, an API).
 * `expected` is the case's `expect[name]`, when it has one. It returns whether the case passes, or a
 * `Score` with a detail the report shows; a scorer that throws fails its case with the error.
 */
export interface ScorerDefinition {
  name: string;
  score(run: ScoredRun, expected: unknown): boolean | Score | Promise<boolean | Score>;
}

/** Declares a scorer (`defineConfig({ scorers: [defineScorer({ name, score })] })`); returns it as it is. */
export function defineScorer(scorer: ScorerDefinition): ScorerDefinition {
  return scorer;
}

/** The names of the built-in scorers: the keys of a case's `expect` that are not custom scorers. */
export const BUILTIN_SCORERS = [
  'contains',
  'equals',
  'output',
  'toolsCalled',
  'maxIterations',
  'maxTokens',
  'status',
  'judge',
] as const;
