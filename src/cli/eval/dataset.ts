import { z } from 'zod';
import { RUN_STATUSES } from '../../contract/agent-loop';
import type { EvalCase } from '../../contract/eval/eval';
import { BUILTIN_SCORERS } from '../../contract/eval/scorer';
import { describeIssues } from '../../contract/issues';

/**
 * A dataset: JSON Lines, one case a line (`{ goal, expect?, agent?, tags? }`); blank lines and lines
 * starting with `#` are skipped. Checked whole before anything starts.
 */

/** How a case's run may end: its result's status, or `failed`. */
const ENDINGS = [...RUN_STATUSES, 'failed'] as const;

const nonEmpty = z.string().trim().min(1);

export const EvalExpectSchema = z
  .object({
    contains: z.union([nonEmpty, z.array(nonEmpty).min(1)]).optional(),
    equals: z.string().optional(),
    output: z.unknown().optional(),
    toolsCalled: z
      .array(
        z.union([nonEmpty, z.strictObject({ name: nonEmpty, args: z.record(z.string(), z.unknown()).optional() })]),
      )
      .optional(),
    maxIterations: z.number().int().positive().optional(),
    maxTokens: z.number().int().positive().optional(),
    status: z.enum(ENDINGS).optional(),
    judge: nonEmpty.optional(),
  })
  .catchall(z.unknown());

export const EvalCaseSchema = z.strictObject({
  goal: nonEmpty.max(100_000),
  expect: EvalExpectSchema.optional(),
  agent: nonEmpty.optional(),
  tags: z.array(nonEmpty).optional(),
});

/**
 * The cases of a dataset's text, or the first problem, naming its line: a line that is not JSON,
 * not a case, or expects of a scorer that is neither built in nor one of `customScorers`.
 */
export function parseDataset(
  text: string,
  customScorers: readonly string[] = [],
): { cases: EvalCase[] } | { problem: string } {
  const known = new Set<string>([...BUILTIN_SCORERS, ...customScorers]);
  const cases: EvalCase[] = [];
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const at = `line ${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      return { problem: `${at}: not JSON (${err instanceof Error ? err.message : String(err)})` };
    }
    const parsed = EvalCaseSchema.safeParse(value);
    if (!parsed.success) return { problem: `${at}: ${describeIssues(parsed.error.issues, 'case')}` };
    const unknown = Object.keys(parsed.data.expect ?? {}).find((key) => !known.has(key));
    if (unknown) {
      const custom = customScorers.length ? `, or the project's ${customScorers.join(', ')}` : '';
      return {
        problem: `${at}: expect.${unknown} names no scorer (built in: ${BUILTIN_SCORERS.join(', ')}${custom})`,
      };
    }
    cases.push(parsed.data as EvalCase);
  }
  if (cases.length === 0) return { problem: 'the dataset has no cases (one JSON object a line: { "goal": … })' };
  return { cases };
}
