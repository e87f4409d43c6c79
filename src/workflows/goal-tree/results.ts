import type { AgentLoopResult } from '../../contract/agent-loop';
import type {
  Achievement,
  ConstraintKind,
  GoalReport,
  GoalResult,
  GoalStatus,
  Synthesis,
} from '../../contract/goal-tree/pursue-goal';
import { clip, MAX_EVIDENCE_ITEMS, MAX_EVIDENCE_SUMMARY_CHARS } from '../../contract/goal-tree/text';
import { ZERO_USAGE } from '../../contract/model/usage';
import type { Spent, Violation } from './ledger';

/**
 * The results a goal ends with. Pure: the workflow decides how a goal ends, these build what its
 * result holds from what the goal has so far. Every result carries what its subtree spent and its
 * children's results, so a parent, and the client reading the tree back, needs nothing else.
 */

/** What a goal has so far, from which its result is built. */
export interface GoalSoFar {
  goal: string;
  workflowId: string;
  depth: number;
  /** Its sub-goals' results so far, in the order of its decomposition, those never started included. */
  children: GoalResult[];
  /** How many sub-goals its decomposition planned; 0 when it did not decompose. */
  planned: number;
  /** What it noted on the way (a dependency problem, a failed achievement check): last in every result's limitations. */
  notes: string[];
  spent: Spent;
}

/** What a result is built from: its report's fields, and why the goal ended as it did. */
type Fields = Partial<GoalReport & Pick<GoalResult, 'reason' | 'constraint'>>;

/**
 * The goal's result with `status` and `fields`. The report's summary falls back to the reason; findings and
 * raw evidence list each fact once (in the order first found), and the raw evidence is capped
 * (`MAX_EVIDENCE_ITEMS` items of `MAX_EVIDENCE_SUMMARY_CHARS`); the goal's notes follow
 * `fields.limitations`.
 */
export function finish(soFar: GoalSoFar, status: GoalStatus, fields: Fields): GoalResult {
  const raw = once((fields.raw_evidence ?? []).map((item) => clip(item, MAX_EVIDENCE_SUMMARY_CHARS))).slice(
    0,
    MAX_EVIDENCE_ITEMS,
  );
  return {
    goal: soFar.goal,
    status,
    report: {
      summary: fields.summary || fields.reason || '',
      key_findings: once(fields.key_findings ?? []),
      confidence: fields.confidence ?? 0,
      limitations: [...(fields.limitations ?? []), ...soFar.notes],
      ...(raw.length ? { raw_evidence: raw } : {}),
    },
    children: soFar.children,
    workflowId: soFar.workflowId,
    depth: soFar.depth,
    ...(fields.reason ? { reason: fields.reason } : {}),
    ...(fields.constraint ? { constraint: fields.constraint } : {}),
    ...soFar.spent,
  };
}

/**
 * What the completed sub-goals found, for a goal that ends without a synthesis: `reason` first,
 * then how many of the planned sub-goals completed and their summaries; their findings (at most 10)
 * and raw evidence; confidence 0.
 */
export function partial(soFar: GoalSoFar, reason?: string): Fields {
  const done = soFar.children.filter((r) => r.status === 'achieved' || r.status === 'synthesized');
  const pursued = soFar.planned
    ? `${done.length} of ${soFar.planned} sub-goals completed${done.length ? ':' : '.'}`
    : '';
  return {
    summary: [reason ? `${reason}.` : '', pursued, ...done.map((r) => clip(r.report.summary, 300))]
      .filter(Boolean)
      .join(' '),
    key_findings: once(done.flatMap((r) => r.report.key_findings)).slice(0, 10),
    raw_evidence: done.flatMap((r) => r.report.raw_evidence ?? []),
    confidence: 0,
  };
}

/** `failed` for `reason`, with what the completed sub-goals found. */
export function failed(soFar: GoalSoFar, reason: string): GoalResult {
  return finish(soFar, 'failed', { ...partial(soFar), reason });
}

/** `constrained` by `violation`, with what the completed sub-goals found (no synthesis: the limit forbids a model call). */
export function constrained(soFar: GoalSoFar, violation: Violation): GoalResult {
  return finish(soFar, 'constrained', {
    ...partial(soFar, violation.reason),
    reason: violation.reason,
    constraint: violation.kind,
  });
}

/**
 * A decomposed goal's result from its synthesis: `achieved` when the last achievement check said
 * so; otherwise `constrained` by the first limit that refused a sub-goal, if one did, else
 * `synthesized`. The gaps an unachieved check named are added to the limitations.
 */
export function synthesized(
  soFar: GoalSoFar,
  synthesis: Synthesis,
  achievement: Achievement | undefined,
  refusal: Violation | undefined,
): GoalResult {
  if (achievement?.achieved) return finish(soFar, 'achieved', synthesis);
  const gaps = achievement ? achievement.remaining_gaps.map((gap) => `Remaining gap: ${gap}`) : [];
  const limitations = [...synthesis.limitations, ...gaps];
  if (refusal)
    return finish(soFar, 'constrained', {
      ...synthesis,
      limitations,
      reason: refusal.reason,
      constraint: refusal.kind,
    });
  return finish(soFar, 'synthesized', { ...synthesis, limitations });
}

/** A decomposed goal none of whose sub-goals started: `constrained` by the first refusal, else `failed` (each one repeated a goal on the stack). */
export function noneStarted(soFar: GoalSoFar, refusal: Violation | undefined): GoalResult {
  if (refusal) return constrained(soFar, refusal);
  return finish(soFar, 'failed', { reason: 'No sub-goal could be pursued: every one repeats a goal on the stack.' });
}

/**
 * An atomic goal's result from how its tool loop ended. The loop's answer is the report's summary, its
 * successful tool calls the findings, their results the raw evidence. `completed` is `achieved`, as
 * confident as the share of calls that succeeded; a deadline or spent budgets is `constrained` by
 * `limit` (from `Ledger.loopLimit`); any other end is `failed`.
 */
export function toolLoopEnded(soFar: GoalSoFar, run: AgentLoopResult, limit: Violation): GoalResult {
  const calls = run.waves.flatMap((wave) => wave.calls);
  const evidence = {
    summary: run.answer,
    key_findings: calls
      .filter((c) => c.ok)
      .map((c) => clip(`${c.tool}(${JSON.stringify(c.args)}) → ${c.result ?? ''}`, 200)),
    raw_evidence: calls.filter((c) => c.ok && c.result).map((c) => c.result!),
  };
  switch (run.status) {
    case 'completed': {
      const confidence = calls.length === 0 ? 1 : calls.filter((c) => c.ok).length / calls.length;
      return finish(soFar, 'achieved', { ...evidence, confidence });
    }
    case 'deadline':
    case 'budget_exhausted':
      return finish(soFar, 'constrained', {
        ...evidence,
        reason: `${limit.reason}: the tool loop stopped after ${run.iterations} iterations`,
        constraint: limit.kind,
      });
    case 'max_iterations':
      return finish(soFar, 'failed', {
        ...evidence,
        reason: `The tool loop stopped at its iteration limit (${run.iterations}) without an answer.`,
      });
    case 'circuit_open':
      return finish(soFar, 'failed', { ...evidence, reason: `The tool loop stopped: ${run.answer}` });
    case 'cancelled':
      return finish(soFar, 'failed', { ...evidence, reason: 'The tool loop was cancelled.' });
    case 'invalid_output':
      return finish(soFar, 'failed', {
        ...evidence,
        reason: `The tool loop's answer did not match its output schema: ${(run.outputErrors ?? []).join('; ')}`,
      });
  }
}

/** `items` with each one kept once, where it first appears. */
function once(items: readonly string[]): string[] {
  return [...new Set(items)];
}

// Sub-goals that report no result of their own: their parent writes it.

/** A sub-goal that was never started (at `depth`): no workflow, nothing spent; `reason` is its report's summary. */
export function notStarted(
  goal: string,
  depth: number,
  status: GoalStatus,
  fields: { reason: string; constraint?: ConstraintKind },
): GoalResult {
  return {
    goal,
    status,
    report: { summary: fields.reason, key_findings: [], confidence: 0, limitations: [] },
    children: [],
    depth,
    ...fields,
    goals: 0,
    usage: ZERO_USAGE,
    costUsd: 0,
  };
}

/** A sub-goal that repeats `ancestor`, a goal on its stack: `cycle_detected`, never started. */
export function cycleDetected(
  goal: string,
  depth: number,
  cycle: { ancestor: string; similarity: number },
): GoalResult {
  const reason = `Repeats "${clip(cycle.ancestor, 120)}" on its goal stack (similarity ${cycle.similarity.toFixed(2)}).`;
  return notStarted(goal, depth, 'cycle_detected', { reason });
}

/** A sub-goal a limit did not let start: `constrained`, never started. */
export function refused(goal: string, depth: number, violation: Violation): GoalResult {
  return notStarted(goal, depth, 'constrained', {
    reason: `${violation.reason}: not started.`,
    constraint: violation.kind,
  });
}

/**
 * A sub-goal whose workflow ended without a result: `constrained` by time when it timed out, else
 * `failed` with its failure. It counts the `goals` it was granted (what it used is unknown).
 */
export function lost(
  goal: string,
  depth: number,
  workflowId: string,
  goals: number,
  end: 'timed out' | { failure: string },
): GoalResult {
  const result =
    end === 'timed out'
      ? notStarted(goal, depth, 'constrained', {
          reason: 'Time limit reached: the goal workflow timed out.',
          constraint: 'time',
        })
      : notStarted(goal, depth, 'failed', { reason: `The goal workflow failed: ${end.failure}` });
  return { ...result, goals, workflowId };
}
