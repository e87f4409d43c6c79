import {
  ActivityFailure,
  ApplicationFailure,
  ChildWorkflowFailure,
  executeChild,
  isCancellation,
  patched,
  proxyActivities,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type { AgentLoopResult } from '../common/contract';
import { DEFAULT_MODEL_ACTIVITY_OPTIONS, RESOLVE_RUN_ACTIVITY_OPTIONS } from '../common/activity-options';
import { DEFAULT_GOAL_CONSTRAINTS } from '../common/goal-defaults';
import type {
  Achievement,
  Assessment,
  ComponentOutput,
  ConstraintKind,
  Decomposition,
  GoalContextInput,
  GoalInput,
  GoalNode,
  GoalResult,
  GoalStatus,
  SubGoal,
} from '../common/goal-contract';
import { costOf } from '../common/pricing';
import { addUsage, reportedUsage, ZERO_USAGE, type Usage } from '../common/usage';
import { agentLoop } from './agent-loop';
import { alarm } from './alarm';
import { childDeadline, MIN_CHILD_TIME_MS, shareLevel, type Share } from './goal-budget';
import { groupIntoLevels } from '../common/goal-levels';
import { findCycle } from './goal-cycles';
import { executionWorkflowId, goalWorkflowId } from '../common/goal-ids';
import { clip, evidenceFor, executionGoal, MAX_EVIDENCE_ITEMS, MAX_EVIDENCE_SUMMARY_CHARS, otherGoals, toEvidence, workflowSummary } from '../common/goal-text';
import { lazy } from './lazy';

type Activities = ReturnType<typeof createActivities>;

/**
 * A goal's tool loop gets the goal's remaining tokens and cost as its budgets (and is not started
 * when they are spent). Runs that started their loop before this replay without it.
 */
const LOOP_BUDGETS_PATCH = 'goal-loop-budgets';
/**
 * A goal's time decisions (is its time up? is there time left to start a child?) are durable
 * timers, not comparisons with `Date.now()`, decided once when the goal starts; the reserve is
 * reckoned from the goal's start event. A replay decides as the goal did (see the same change in
 * agent-loop.ts). Goals that started before replay as they were recorded.
 */
const GOAL_CLOCK_PATCH = 'goal-clock-from-history';

const { resolveGoal } = proxyActivities<Activities>(RESOLVE_RUN_ACTIVITY_OPTIONS);
const { assessGoal, decomposeGoal, checkAchieved, synthesizeGoal, answerGoal } = proxyActivities<Activities>(DEFAULT_MODEL_ACTIVITY_OPTIONS);

/**
 * Pursues one goal (seed 002): assess → execute, or decompose → pursue the sub-goals level by level
 * as parallel child `pursueGoal` workflows → check achievement after each level (stopping early when
 * achieved) → synthesize. The root settles the model and tools and the tree-wide limits; every
 * child gets its goal, the goal stack, the evidence so far and its share of the budgets from its
 * parent. A failing, timed-out or refused child is evidence for its parent, never a crash of the tree.
 */
export async function pursueGoal(rawInput: unknown): Promise<GoalResult> {
  const input = fromParentGoal(rawInput) ?? lazy.goalContract().parseGoalInput(rawInput);
  const node = input.node ?? (await rootNode(input));
  return new Pursuit(input, node).run();
}

/**
 * A sub-goal's input as its parent goal built it, from the parent's validated input and the model's
 * validated sub-goal: recognised by the parent's workflow id, which the node's path names. It is not
 * validated again, so a tree's children load no zod (src/workflows/lazy.ts). Any other input is.
 */
function fromParentGoal(rawInput: unknown): GoalInput | undefined {
  const parent = workflowInfo().parent;
  const node = (rawInput as Partial<GoalInput> | null)?.node;
  if (!parent || typeof node !== 'object' || node === null || typeof node.rootId !== 'string' || !Array.isArray(node.path) || node.path.length === 0) {
    return undefined;
  }
  return parent.workflowId === goalWorkflowId(node.rootId, node.path.slice(0, -1)) ? (rawInput as GoalInput) : undefined;
}

interface Violation {
  kind: ConstraintKind;
  reason: string;
}

type Asked<T> = { ok: true; value: T } | { ok: false; error: string };

class Pursuit {
  private readonly id: string;
  private readonly depth: number;
  private readonly limits: Required<Pick<NonNullable<GoalInput['constraints']>, 'maxDepth' | 'maxGoals' | 'maxTimeSeconds'>>;
  /** When children must be done: the goal's own deadline minus a reserve to record their results. */
  private readonly childDeadlineMs: number;
  /** Whether the children's deadline has passed, and whether it is too close to start one (GOAL_CLOCK_PATCH). */
  private readonly timeUp: () => boolean;
  private readonly tooLateForChild: () => boolean;
  private usage: Usage = ZERO_USAGE;
  private costUsd = 0;
  /** Tokens and cost of children that could not report (failed, timed out): their whole share. */
  private unreported = { tokens: 0, costUsd: 0 };
  /** Goals of this subtree so far, this one included. */
  private goalsUsed = 1;
  private readonly results: GoalResult[] = [];
  private readonly limitations: string[] = [];
  /** Sub-goals this goal did not start because of a limit. */
  private readonly refusals: Violation[] = [];
  private planned = 0;
  /** The descriptions of this goal's sub-goals, once decomposed. */
  private subGoals: string[] = [];

  constructor(
    private readonly input: GoalInput,
    private readonly node: GoalNode,
  ) {
    this.id = goalWorkflowId(node.rootId, node.path);
    this.depth = node.stack.length;
    this.limits = {
      maxDepth: input.constraints?.maxDepth ?? DEFAULT_GOAL_CONSTRAINTS.maxDepth,
      maxGoals: input.constraints?.maxGoals ?? DEFAULT_GOAL_CONSTRAINTS.maxGoals,
      maxTimeSeconds: input.constraints?.maxTimeSeconds ?? DEFAULT_GOAL_CONSTRAINTS.maxTimeSeconds,
    };
    const startedAt = workflowInfo().startTime.getTime();
    if (patched(GOAL_CLOCK_PATCH)) {
      this.childDeadlineMs = childDeadline(node.budget.deadlineMs, startedAt, node.path.length === 0);
      this.timeUp = alarm(this.childDeadlineMs, startedAt);
      this.tooLateForChild = alarm(this.childDeadlineMs - MIN_CHILD_TIME_MS, startedAt);
    } else {
      this.childDeadlineMs = childDeadline(node.budget.deadlineMs, Date.now(), node.path.length === 0);
      this.timeUp = () => Date.now() >= this.childDeadlineMs;
      this.tooLateForChild = () => this.childDeadlineMs - Date.now() < MIN_CHILD_TIME_MS;
    }
  }

  /** The time a child gets: what is left until the children's deadline (at least a second: a timeout of 0 would mean none). */
  private childTimeoutMs(): number {
    return Math.max(1_000, this.childDeadlineMs - Date.now());
  }

  async run(): Promise<GoalResult> {
    const early = this.violation();
    if (early) return this.constrained(early);

    const blocked = this.decompositionBlocked();
    const assessed = await this.ask<Assessment>('assess', (input, summary) =>
      assessGoal.executeWithOptions(modelOptions(summary), [{ ...input, canDecompose: !blocked }]),
    );
    if (!assessed.ok) return this.finish('failed', { reason: assessed.error });
    if (assessed.value.directly_executable) return this.execute(assessed.value);
    if (blocked) return this.constrained(blocked);

    const violation = this.violation();
    if (violation) return this.constrained(violation);
    const { reasoning, decomposition_needed_because: because } = assessed.value;
    const decomposed = await this.ask<Decomposition>('decompose', (input, summary) =>
      decomposeGoal.executeWithOptions(modelOptions(summary), [{ ...input, rationale: because || reasoning, others: this.node.others ?? [] }]),
    );
    if (!decomposed.ok) return this.finish('failed', { reason: decomposed.error });
    return this.pursueSubGoals(decomposed.value.sub_goals);
  }

  /** An atomic goal: a tool loop (`agentLoop` child) with the tree's tools, or a direct answer. */
  private async execute(assessment: Assessment): Promise<GoalResult> {
    const violation = this.violation();
    if (violation) return this.constrained(violation);
    const action = assessment.action ?? undefined;
    if (this.node.tools.length === 0 || action?.kind === 'answer') {
      const answered = await this.ask('answer', (input, summary) =>
        answerGoal.executeWithOptions(modelOptions(summary), [{ ...input, action: action?.description ?? this.node.goal }]),
      );
      if (!answered.ok) return this.finish('failed', { reason: answered.error });
      return this.finish('achieved', answered.value);
    }

    if (this.tooLateForChild()) return this.constrained(this.timeViolation());
    const timeoutMs = this.childTimeoutMs();
    // The tool loop gets what this goal has left of the tree's tokens and cost as its own budgets,
    // so it ends gracefully with what it found (`budget_exhausted`) instead of overspending.
    const budgeted = patched(LOOP_BUDGETS_PATCH);
    const left = this.left();
    if (budgeted) {
      const violation = this.violation();
      if (violation) return this.constrained(violation);
    }
    try {
      const run = await executeChild(agentLoop, {
        workflowId: executionWorkflowId(this.id),
        args: [
          {
            goal: executionGoal(this.node.goal, this.input.objective, action?.description, this.node.evidence),
            model: this.node.model,
            tools: this.node.tools,
            ...(this.input.agent ? { agent: this.input.agent } : {}),
            ...(budgeted && left.tokens !== undefined ? { maxTokens: Math.floor(left.tokens) } : {}),
            ...(budgeted && left.costUsd !== undefined ? { maxCostUsd: left.costUsd } : {}),
          },
        ],
        workflowExecutionTimeout: timeoutMs,
        staticSummary: workflowSummary(`tools · ${this.node.goal}`),
      });
      this.spend(run.usage);
      return this.loopEnded(run, left);
    } catch (err) {
      if (isCancellation(err)) throw err;
      if (isTimeout(err)) return this.constrained(this.timeViolation());
      // A loop that failed after some model calls says what they used (`usageReport`).
      const cause = err instanceof ChildWorkflowFailure ? err.cause : undefined;
      const used = cause instanceof ApplicationFailure ? reportedUsage(cause.details ?? undefined) : undefined;
      if (used) this.spend(used);
      return this.finish('failed', { reason: `The tool loop failed: ${describeFailure(err)}` });
    }
  }

  private async pursueSubGoals(subGoals: SubGoal[]): Promise<GoalResult> {
    this.planned = subGoals.length;
    this.subGoals = subGoals.map((s) => s.description);
    const { levels, problem } = groupIntoLevels(subGoals.map((s) => s.dependencies));
    if (problem) this.limitations.push(problem);

    let achievement: Achievement | undefined;
    for (const [index, level] of levels.entries()) {
      const before = this.violation();
      if (before) return this.constrained(before);
      const later = levels.slice(index + 1).reduce((n, l) => n + l.length, 0);
      const results = await this.pursueLevel(level.map((i) => ({ index: i, goal: subGoals[i].description })), later);
      this.results.push(...results);
      // Children get all the time this goal has for them: one that ran out means this goal has too.
      if (results.some((r) => r.constraint === 'time')) return this.constrained(this.timeViolation());
      if (this.results.every((r) => !r.workflowId)) continue;

      const after = this.violation();
      if (after) return this.constrained(after);
      const checked = await this.ask<Achievement>(`achieved? · level ${index + 1}`, (input, summary) =>
        checkAchieved.executeWithOptions(modelOptions(summary), [{ ...input, results: this.results.map(toEvidence) }]),
      );
      if (!checked.ok) this.limitations.push(checked.error);
      else if (checked.value.achieved) {
        achievement = checked.value;
        break;
      } else achievement = checked.value;
    }

    if (this.results.every((r) => !r.workflowId)) {
      const refusal = this.refusals[0];
      if (refusal) return this.constrained(refusal);
      return this.finish('failed', { reason: 'No sub-goal could be pursued: every one repeats a goal on the stack.' });
    }
    const violation = this.violation();
    if (violation) return this.constrained(violation);
    const synthesized = await this.ask('synthesize', (input, summary) =>
      synthesizeGoal.executeWithOptions(modelOptions(summary), [{ ...input, results: this.results.map(toEvidence) }]),
    );
    if (!synthesized.ok) return this.finish('failed', { ...this.partial(), reason: synthesized.error });
    const gaps = achievement && !achievement.achieved ? achievement.remaining_gaps.map((gap) => `Remaining gap: ${gap}`) : [];
    const refusal = this.refusals[0];
    if (achievement?.achieved) return this.finish('achieved', synthesized.value);
    if (refusal) {
      const limitations = [...synthesized.value.limitations, ...gaps];
      return this.finish('constrained', { ...synthesized.value, limitations, reason: refusal.reason, constraint: refusal.kind });
    }
    return this.finish('synthesized', { ...synthesized.value, limitations: [...synthesized.value.limitations, ...gaps] });
  }

  /**
   * Starts the sub-goals of one level at once, each as a child workflow with its share of the
   * budgets. A sub-goal that repeats a goal on the stack, or for which no share is left, is not
   * started: it becomes a `cycle_detected` or `constrained` result here.
   */
  private async pursueLevel(level: Array<{ index: number; goal: string }>, later: number): Promise<GoalResult[]> {
    const stack = [...this.node.stack, this.node.goal];
    const cycles = level.map(({ goal }) => findCycle(goal, stack));
    const shares = shareLevel(cycles.filter((c) => !c).length, later, this.left());
    const shareOf = cycles.map((cycle, i) => (cycle ? undefined : shares[cycles.slice(0, i).filter((c) => !c).length]));
    const evidence = evidenceFor(this.node.evidence, this.results);
    return Promise.all(
      level.map(async ({ index, goal }, i): Promise<GoalResult> => {
        const cycle = cycles[i];
        if (cycle) {
          const reason = `Repeats "${clip(cycle.ancestor, 120)}" on its goal stack (similarity ${cycle.similarity.toFixed(2)}).`;
          return this.notStarted(goal, 'cycle_detected', { reason });
        }
        const share = shareOf[i]!;
        if ('refused' in share) return this.refuse(goal, this.violationOf(share.refused));
        if (this.tooLateForChild()) return this.refuse(goal, this.timeViolation());
        return this.startChild(goal, index + 1, share, stack, evidence, this.childTimeoutMs());
      }),
    );
  }

  private async startChild(
    goal: string,
    position: number,
    share: Exclude<Share, { refused: ConstraintKind }>,
    stack: string[],
    evidence: GoalNode['evidence'],
    timeoutMs: number,
  ): Promise<GoalResult> {
    const path = [...this.node.path, position];
    const workflowId = goalWorkflowId(this.node.rootId, path);
    const node: GoalNode = {
      ...this.node,
      path,
      goal,
      stack,
      evidence,
      budget: { goals: share.goals, deadlineMs: this.childDeadlineMs, tokens: share.tokens, costUsd: share.costUsd },
      others: otherGoals(this.subGoals, goal, this.node.others),
    };
    const { objective, constraints, tools, model, agent } = this.input;
    try {
      const result = await executeChild(pursueGoal, {
        workflowId,
        args: [{ objective, constraints, tools, model, ...(agent ? { agent } : {}), node }],
        workflowExecutionTimeout: timeoutMs,
        staticSummary: workflowSummary(goal),
      });
      this.goalsUsed += result.goals;
      this.usage = addUsage(this.usage, result.usage);
      this.costUsd += result.costUsd;
      return result;
    } catch (err) {
      if (isCancellation(err)) throw err;
      // The child could not report what it used: count its whole share.
      this.goalsUsed += share.goals;
      this.unreported.tokens += share.tokens ?? 0;
      this.unreported.costUsd += share.costUsd ?? 0;
      const base = { goals: share.goals, workflowId, depth: this.depth + 1 };
      if (isTimeout(err)) {
        return { ...this.notStarted(goal, 'constrained', { reason: 'Time limit reached: the goal workflow timed out.', constraint: 'time' }), ...base };
      }
      return { ...this.notStarted(goal, 'failed', { reason: `The goal workflow failed: ${describeFailure(err)}` }), ...base };
    }
  }

  /** Asks a model component; a reply that does not parse is shown to the model once, with the error. */
  private async ask<T>(name: string, call: (input: GoalContextInput, summary: string) => Promise<ComponentOutput<T>>): Promise<Asked<T>> {
    const input: GoalContextInput = {
      model: this.node.model,
      objective: this.input.objective,
      goal: this.node.goal,
      stack: this.node.stack,
      tools: this.node.tools,
      evidence: this.node.evidence,
    };
    try {
      let output = await call(input, name);
      this.spend(output.usage);
      if (!output.ok) {
        output = await call({ ...input, repair: { reply: output.reply, error: output.error } }, `${name} · retry (invalid reply)`);
        this.spend(output.usage);
      }
      if (output.ok) return { ok: true, value: output.value };
      return { ok: false, error: `${name}: the model's reply did not match the schema twice (${output.error})` };
    } catch (err) {
      if (isCancellation(err)) throw err;
      return { ok: false, error: `${name} failed: ${describeFailure(err)}` };
    }
  }

  /** A goal's result from how its tool loop ended: the loop's answer and findings are its evidence. */
  private loopEnded(run: AgentLoopResult, budgets: { tokens?: number; costUsd?: number }): GoalResult {
    const calls = run.waves.flatMap((wave) => wave.calls);
    const evidence = {
      summary: run.answer,
      key_findings: calls.filter((c) => c.ok).map((c) => clip(`${c.tool}(${JSON.stringify(c.args)}) → ${c.result ?? ''}`, 200)),
      raw_evidence: calls.filter((c) => c.ok && c.result).map((c) => c.result!),
    };
    switch (run.status) {
      case 'completed': {
        const confidence = calls.length === 0 ? 1 : calls.filter((c) => c.ok).length / calls.length;
        return this.finish('achieved', { ...evidence, confidence });
      }
      case 'deadline':
      case 'budget_exhausted': {
        const kind = run.status === 'deadline' ? 'time' : spentBudget(run.usage, costOf(run.usage, this.node.price), budgets);
        const { reason } = this.violationOf(kind);
        return this.finish('constrained', { ...evidence, reason: `${reason}: the tool loop stopped after ${run.iterations} iterations`, constraint: kind });
      }
      case 'max_iterations':
        return this.finish('failed', { ...evidence, reason: `The tool loop stopped at its iteration limit (${run.iterations}) without an answer.` });
      case 'circuit_open':
        return this.finish('failed', { ...evidence, reason: `The tool loop stopped: ${run.answer}` });
      case 'cancelled':
        return this.finish('failed', { ...evidence, reason: 'The tool loop was cancelled.' });
    }
  }

  private spend(usage: Usage): void {
    this.usage = addUsage(this.usage, usage);
    this.costUsd += costOf(usage, this.node.price);
  }

  private left() {
    const { tokens, costUsd } = this.node.budget;
    return {
      goals: this.node.budget.goals - this.goalsUsed,
      tokens: tokens === undefined ? undefined : Math.max(0, tokens - this.usage.totalTokens - this.unreported.tokens),
      costUsd: costUsd === undefined ? undefined : Math.max(0, costUsd - this.costUsd - this.unreported.costUsd),
    };
  }

  /** A limit this goal has run into (time, tokens, cost), if any. */
  private violation(): Violation | undefined {
    if (this.timeUp()) return this.timeViolation();
    const left = this.left();
    if (left.tokens !== undefined && left.tokens <= 0) return this.violationOf('tokens');
    if (left.costUsd !== undefined && left.costUsd <= 0) return this.violationOf('cost');
    return undefined;
  }

  /** Why this goal may not be decomposed, if it may not. */
  private decompositionBlocked(): Violation | undefined {
    if (this.depth + 1 >= this.limits.maxDepth) return this.violationOf('depth');
    if (this.node.budget.goals - this.goalsUsed < 1) return this.violationOf('goals');
    return undefined;
  }

  private timeViolation(): Violation {
    return this.violationOf('time');
  }

  private violationOf(kind: ConstraintKind): Violation {
    const c = this.input.constraints;
    const reasons: Record<ConstraintKind, string> = {
      depth: `Max depth (${this.limits.maxDepth}) reached: the goal cannot be decomposed further`,
      goals: `Goal limit (${this.limits.maxGoals}) reached`,
      time: `Time limit (${this.limits.maxTimeSeconds}s) reached`,
      tokens: `Token limit (${c?.maxTokens} for the tree) reached: this goal's share is used up`,
      cost: `Cost limit ($${c?.maxCostUsd ?? DEFAULT_GOAL_CONSTRAINTS.maxCostUsd} for the tree) reached: this goal's share is used up`,
    };
    return { kind, reason: reasons[kind] };
  }

  private refuse(goal: string, violation: Violation): GoalResult {
    this.refusals.push(violation);
    return this.notStarted(goal, 'constrained', { reason: `${violation.reason}: not started.`, constraint: violation.kind });
  }

  private notStarted(goal: string, status: GoalStatus, fields: { reason: string; constraint?: ConstraintKind }): GoalResult {
    return {
      goal,
      status,
      summary: fields.reason,
      key_findings: [],
      confidence: 0,
      limitations: [],
      children: [],
      depth: this.depth + 1,
      ...fields,
      goals: 0,
      usage: ZERO_USAGE,
      costUsd: 0,
    };
  }

  /** `constrained`, with what the sub-goals pursued so far found (no model call: the limit forbids it). */
  private constrained(violation: Violation): GoalResult {
    return this.finish('constrained', { ...this.partial(violation.reason), reason: violation.reason, constraint: violation.kind });
  }

  private partial(reason?: string) {
    const done = this.results.filter((r) => r.status === 'achieved' || r.status === 'synthesized');
    const pursued = this.planned ? ` ${done.length} of ${this.planned} sub-goals completed${done.length ? ':' : '.'}` : '';
    return {
      summary: [reason ? `${reason}.` : '', pursued, ...done.map((r) => clip(r.summary, 300))].filter(Boolean).join(' ').trim(),
      key_findings: done.flatMap((r) => r.key_findings).slice(0, 10),
      raw_evidence: done.flatMap((r) => r.raw_evidence ?? []),
      confidence: 0,
    };
  }

  private finish(
    status: GoalStatus,
    fields: Partial<Pick<GoalResult, 'summary' | 'key_findings' | 'confidence' | 'limitations' | 'raw_evidence' | 'reason' | 'constraint'>>,
  ): GoalResult {
    const raw = (fields.raw_evidence ?? []).slice(0, MAX_EVIDENCE_ITEMS).map((item) => clip(item, MAX_EVIDENCE_SUMMARY_CHARS));
    return {
      goal: this.node.goal,
      status,
      summary: fields.summary || fields.reason || '',
      key_findings: fields.key_findings ?? [],
      confidence: fields.confidence ?? 0,
      limitations: [...(fields.limitations ?? []), ...this.limitations],
      ...(raw.length ? { raw_evidence: raw } : {}),
      children: this.results,
      workflowId: this.id,
      depth: this.depth,
      ...(fields.reason ? { reason: fields.reason } : {}),
      ...(fields.constraint ? { constraint: fields.constraint } : {}),
      goals: this.goalsUsed,
      usage: this.usage,
      costUsd: this.costUsd,
    };
  }
}

function modelOptions(summary: string) {
  return { ...DEFAULT_MODEL_ACTIVITY_OPTIONS, summary };
}

/** The root settles the model, its price and the tools once, and holds the tree-wide budgets. */
async function rootNode(input: GoalInput): Promise<GoalNode> {
  let resolved;
  try {
    resolved = await resolveGoal.executeWithOptions({ ...RESOLVE_RUN_ACTIVITY_OPTIONS, summary: 'resolve model and tools' }, [
      { model: input.model, tools: input.tools, ...(input.agent ? { agent: input.agent } : {}) },
    ]);
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err;
    if (cause instanceof ApplicationFailure && cause.nonRetryable) {
      throw ApplicationFailure.create({ type: cause.type ?? undefined, message: cause.message, nonRetryable: true, cause });
    }
    throw err;
  }
  const info = workflowInfo();
  const c = input.constraints ?? {};
  return {
    rootId: info.workflowId,
    path: [],
    goal: input.objective,
    stack: [],
    evidence: [],
    budget: {
      goals: c.maxGoals ?? DEFAULT_GOAL_CONSTRAINTS.maxGoals,
      deadlineMs: info.runStartTime.getTime() + (c.maxTimeSeconds ?? DEFAULT_GOAL_CONSTRAINTS.maxTimeSeconds) * 1000,
      tokens: c.maxTokens,
      costUsd: c.maxCostUsd ?? DEFAULT_GOAL_CONSTRAINTS.maxCostUsd,
    },
    ...resolved,
  };
}

/** Which of a tool loop's budgets it used up: the one it spent the larger share of. */
function spentBudget(usage: Usage, costUsd: number, budgets: { tokens?: number; costUsd?: number }): 'tokens' | 'cost' {
  const tokenShare = budgets.tokens ? usage.totalTokens / budgets.tokens : 0;
  const costShare = budgets.costUsd ? costUsd / budgets.costUsd : 0;
  return costShare > tokenShare ? 'cost' : 'tokens';
}

function isTimeout(err: unknown): boolean {
  return err instanceof ChildWorkflowFailure && err.cause instanceof TimeoutFailure;
}

function describeFailure(err: unknown): string {
  if (err instanceof ActivityFailure || err instanceof ChildWorkflowFailure) {
    const cause = err.cause;
    if (cause instanceof ApplicationFailure && cause.type) return `${cause.type}: ${cause.message}`;
    return cause?.message ?? err.message;
  }
  return err instanceof Error ? err.message : String(err);
}
