import type { EvalExpect, Score } from '../../contract/eval/eval';
import type { ScoredRun } from '../../contract/eval/scorer';

/**
 * The built-in scorers: pure functions of a case's expectation and its run. Each scores only when
 * the case's `expect` names it, but `status`, which every case gets (default: `completed`). A run
 * that failed fails every scorer but `status`.
 */

type Builtin = 'contains' | 'equals' | 'output' | 'toolsCalled' | 'maxIterations' | 'maxTokens';

/** The built-in scores of a run (the judge apart: `judge.ts`). */
export function builtinScores(run: ScoredRun): Record<string, Score> {
  const expect = run.case.expect ?? {};
  const scores: Record<string, Score> = {};
  for (const name of Object.keys(SCORERS) as Builtin[]) {
    if (expect[name] === undefined) continue;
    const score = SCORERS[name] as (expected: unknown, run: ScoredRun) => Score;
    scores[name] = run.result ? score(expect[name], run) : { pass: false, detail: `the run failed: ${run.failure}` };
  }
  const wanted = expect.status ?? 'completed';
  const status = run.result?.status ?? 'failed';
  scores.status =
    status === wanted ? { pass: true } : { pass: false, detail: `${status}, not ${wanted}${failureNote(run)}` };
  return scores;
}

function failureNote(run: ScoredRun): string {
  return run.failure ? `: ${run.failure}` : '';
}

/** Each scorer, given the case's (validated) `expect[name]` and a run that ended. */
const SCORERS: { [K in Builtin]: (expected: NonNullable<EvalExpect[K]>, run: ScoredRun) => Score } = {
  contains(expected, run) {
    const answer = run.result!.answer.toLowerCase();
    const missing = [expected].flat().filter((text) => !answer.includes(text.toLowerCase()));
    return missing.length ? { pass: false, detail: `the answer lacks ${quoteAll(missing)}` } : { pass: true };
  },
  equals(expected, run) {
    const answer = run.result!.answer.trim();
    return answer === expected.trim() ? { pass: true } : { pass: false, detail: `the answer is ${quote(answer)}` };
  },
  output(expected, run) {
    const output = run.result!.output;
    if (output === undefined) return { pass: false, detail: 'the run has no typed output' };
    const where = mismatch(expected, output, 'output');
    return where ? { pass: false, detail: where } : { pass: true };
  },
  toolsCalled(expected, run) {
    const calls = run.result!.waves.flatMap((wave) => wave.calls);
    const missing = expected.filter((want) => {
      const { name, args } = typeof want === 'string' ? { name: want, args: undefined } : want;
      return !calls.some((call) => call.tool === name && (!args || !mismatch(args, call.args, 'args')));
    });
    if (!missing.length) return { pass: true };
    const called = calls.map((call) => call.tool).join(', ') || 'none';
    const what = missing.map((m) => (typeof m === 'string' ? m : `${m.name}(${JSON.stringify(m.args ?? {})})`));
    return { pass: false, detail: `not called: ${what.join(', ')} (called: ${called})` };
  },
  maxIterations(expected, run) {
    const { iterations } = run.result!;
    return iterations <= expected ? { pass: true } : { pass: false, detail: `${iterations} iterations` };
  },
  maxTokens(expected, run) {
    const tokens = run.result!.usage.totalTokens;
    return tokens <= expected ? { pass: true } : { pass: false, detail: `${tokens} tokens` };
  },
};

/**
 * Where `actual` does not hold `expected` (a JSON subset match), or undefined when it does: an
 * object holds the expected keys with matching values (others may be there too), an array has the
 * same length with each item matching, anything else is equal.
 */
export function mismatch(expected: unknown, actual: unknown, path: string): string | undefined {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length)
      return `${path} is ${JSON.stringify(actual)}, not an array of ${expected.length}`;
    for (const [i, item] of expected.entries()) {
      const where = mismatch(item, actual[i], `${path}[${i}]`);
      if (where) return where;
    }
    return undefined;
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual))
      return `${path} is ${JSON.stringify(actual)}, not an object`;
    for (const [key, value] of Object.entries(expected)) {
      const where = mismatch(value, (actual as Record<string, unknown>)[key], `${path}.${key}`);
      if (where) return where;
    }
    return undefined;
  }
  return Object.is(expected, actual)
    ? undefined
    : `${path} is ${JSON.stringify(actual)}, not ${JSON.stringify(expected)}`;
}

function quote(text: string, max = 80): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max - 1)}…` : text);
}

function quoteAll(texts: string[]): string {
  return texts.map((text) => quote(text)).join(', ');
}
