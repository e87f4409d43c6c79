import {
  executeChild,
  isCancellation,
  proxyActivities,
  setCurrentDetails,
  type ActivityFunctionWithOptions,
} from '@temporalio/workflow';
import { DEFAULT_MODEL_ACTIVITY_OPTIONS } from '../../contract/activity-options';
import { priorityFields, temporalPriority, withPriority } from '../../contract/flow/priority';
import type { GoalTreeActivities } from '../../contract/goal-tree/activities';
import { executionWorkflowId, goalWorkflowId } from '../../contract/goal-tree/ids';
import { groupIntoLevels } from '../../contract/goal-tree/levels';
import type {
  Achievement,
  Assessment,
  ComponentOutput,
  GoalContextInput,
  GoalInput,
  GoalNode,
  GoalResult,
  SubGoal,
} from '../../contract/goal-tree/pursue-goal';
import { evidenceFor, executionGoal, otherGoals, toEvidence, workflowSummary } from '../../contract/goal-tree/text';
import { resolveTreeSettings, type TreeSettings } from '../../contract/settings/resolve';
import { agentLoop } from '../agent-loop';
import { Notifier } from '../notices';
import { Slots } from '../slots';
import { shareLevel, type Grant } from './budget';
import { goalClock, type GoalClock } from './clock';
import { findCycle } from './cycles';
import { describeFailure, timedOut, usageOfFailedChild } from './failures';
import { Ledger, type Violation } from './ledger';
import { withOutput } from './output';
import * as results from './results';
import { goalInput, rootNode } from './start';

const { assessGoal, decomposeGoal, checkAchieved, synthesizeGoal, answerGoal } =
  proxyActivities<GoalTreeActivities>(DEFAULT_MODEL_ACTIVITY_OPTIONS);

/**
 * Pursues one goal: assess → execute (a tool loop, or a direct answer), or decompose →
 * pursue the sub-goals level by level, each level's as parallel child `pursueGoal` workflows → ask
 * after each level whether the goal is achieved (stopping early when it is) → synthesize.
 *
 * Before each step the goal asks its ledger whether a limit forbids it (time, tokens, cost; depth
 * and goals before decomposing); one that does ends the goal `constrained` with what its sub-goals
 * found so far. The root settles the model, the tools and the tree-wide budgets; every child gets
 * its goal, the goal stack, the evidence so far and its share of the budgets from its parent. A
 * failing, timed-out or refused child is evidence for its parent, never a crash of the tree. The
 * goal's current details (the Web UI's) say the goal and the step it is at, then how it ended.
 */
export async function pursueGoal(rawInput: unknown): Promise<GoalResult> {
  const input = goalInput(rawInput);
  // The tree's limits, with their defaults: a child gets the input as the root was given it.
  const settings = resolveTreeSettings({ tree: input });
  if (input.node) return pursueNode(input, settings, input.node);
  // The root tells the tree's webhooks how it ended; its tool loops tell what they wait for.
  const root = await rootNode(input, settings);
  const notifier = new Notifier(root.webhooks, input.goal, input.startedBy, input.webhooks);
  let result: GoalResult;
  try {
    result = await pursueNode(input, settings, root.node);
  } catch (err) {
    await (isCancellation(err) ? notifier.ended({ status: 'cancelled', answer: '' }) : notifier.failed(err));
    throw err;
  }
  await notifier.ended({ status: result.status, answer: result.report.summary, output: result.output });
  return result;
}

/** Pursues the goal of `node` to its result (the root's with its output, when the tree has an output schema). */
async function pursueNode(input: GoalInput, settings: TreeSettings, node: GoalNode): Promise<GoalResult> {
  const g = openGoal(input, settings, node);
  const pursued = await pursue(g);
  // The root of a tree with an output schema: its result also as JSON of that shape.
  const result =
    input.output && !input.node
      ? await withOutput(pursued, {
          ...g.node,
          schema: input.output,
          goal: input.goal,
          ...priorityFields(input),
        })
      : pursued;
  show(g, `**${result.status}** · ${result.report.summary}`);
  return result;
}

/** The steps of the goal `g`, to its result. */
async function pursue(g: Goal): Promise<GoalResult> {
  const cannotDecompose = g.ledger.check('decompose');
  const assessed = await ask(g, 'assess', assessGoal, { canDecompose: !cannotDecompose });
  if (!assessed.ok) return stopped(g, assessed);
  if (assessed.value.directly_executable) return execute(g, assessed.value.action ?? undefined);
  if (cannotDecompose) return results.constrained(soFar(g), cannotDecompose);

  const rationale = assessed.value.decomposition_needed_because || assessed.value.reasoning;
  const decomposed = await ask(g, 'decompose', decomposeGoal, { rationale, others: g.node.others });
  if (!decomposed.ok) return stopped(g, decomposed);
  return pursueSubGoals(g, decomposed.value.sub_goals);
}

/** An atomic goal: a direct answer when the tree has no tools or the action is an answer, else a tool loop. */
async function execute(g: Goal, action: Assessment['action']): Promise<GoalResult> {
  if (g.node.tools.length > 0 && action?.kind !== 'answer') return runToolLoop(g, action?.description);
  const answered = await ask(g, 'answer', answerGoal, { action: action?.description ?? g.node.goal });
  return answered.ok ? results.finish(soFar(g), 'achieved', answered.value) : stopped(g, answered);
}

/**
 * Runs the goal's tool loop, an `agentLoop` child with the tree's tools and agent. It gets what the
 * goal has left of the tree's tokens and cost as its own budgets, so it ends with what it found
 * (`budget_exhausted`) instead of overspending; and what the goal has left of its time.
 */
async function runToolLoop(g: Goal, action: string | undefined): Promise<GoalResult> {
  const stop = g.ledger.check('start');
  if (stop) return results.constrained(soFar(g), stop);
  const budgets = g.ledger.left();
  const { goal: rootGoal, agent, webhooks, startedBy } = g.input;
  const workflowId = executionWorkflowId(g.id);
  show(g, `Running its tool loop \`${workflowId}\` (its details say what it waits for)`);
  try {
    const run = await executeChild(agentLoop, {
      workflowId,
      args: [
        {
          goal: executionGoal(g.node.goal, rootGoal, action, g.node.evidence),
          model: g.node.model,
          tools: g.node.tools,
          ...(agent ? { agent } : {}),
          ...(webhooks ? { webhooks } : {}),
          ...(startedBy ? { startedBy } : {}),
          ...priorityFields(g.input),
          // A sub-goal's answer is evidence for the tree, in words, whatever shape the agent's answers take.
          output: null,
          ...(budgets.tokens !== undefined ? { maxTokens: Math.floor(budgets.tokens) } : {}),
          ...(budgets.costUsd !== undefined ? { maxCostUsd: budgets.costUsd } : {}),
        },
      ],
      workflowExecutionTimeout: g.clock.childTimeoutMs(),
      staticSummary: workflowSummary(`tools · ${g.node.goal}`),
      ...placed(g),
    });
    g.ledger.spend(run.usage);
    return results.toolLoopEnded(soFar(g), run, g.ledger.loopLimit(run, budgets));
  } catch (err) {
    if (isCancellation(err)) throw err;
    if (timedOut(err)) return results.constrained(soFar(g), g.ledger.violation('time'));
    const used = usageOfFailedChild(err);
    if (used) g.ledger.spend(used);
    return results.failed(soFar(g), `The tool loop failed: ${describeFailure(err)}`);
  }
}

/** Pursues the sub-goals level by level (by their dependencies), checks achievement after each level, then synthesizes. */
async function pursueSubGoals(g: Goal, subGoals: SubGoal[]): Promise<GoalResult> {
  g.planned = subGoals.map((s) => s.description);
  const { levels, problem } = groupIntoLevels(subGoals.map((s) => s.dependencies));
  if (problem) g.notes.push(problem);

  let achievement: Achievement | undefined;
  for (const [index, level] of levels.entries()) {
    const stop = g.ledger.check('work');
    if (stop) return results.constrained(soFar(g), stop);
    const later = levels.slice(index + 1).reduce((n, l) => n + l.length, 0);
    show(
      g,
      `Pursuing level ${index + 1} of ${levels.length} of its sub-goals:\n${level.map((i) => `- ${g.planned[i]}`).join('\n')}`,
    );
    g.children.push(...(await pursueLevel(g, level, later)));
    // Children get all the time this goal has for them: one that ran out means this goal has too.
    if (g.children.some((r) => r.constraint === 'time'))
      return results.constrained(soFar(g), g.ledger.violation('time'));
    if (!g.children.some((r) => r.workflowId)) continue;

    const checked = await ask(g, `achieved? · level ${index + 1}`, checkAchieved, {
      results: g.children.map(toEvidence),
    });
    if (checked.ok) achievement = checked.value;
    else if ('stop' in checked) return results.constrained(soFar(g), checked.stop);
    else g.notes.push(checked.error);
    if (achievement?.achieved) break;
  }

  if (!g.children.some((r) => r.workflowId)) return results.noneStarted(soFar(g), g.refusals[0]);
  const synthesis = await ask(g, 'synthesize', synthesizeGoal, { results: g.children.map(toEvidence) });
  if (!synthesis.ok) return stopped(g, synthesis);
  return results.synthesized(soFar(g), synthesis.value, achievement, g.refusals[0]);
}

/**
 * Starts the sub-goals of one level (indices into `g.planned`) at once, or `maxParallelGoals` of them
 * at a time, each with its share of the budgets (`later`: sub-goals of the levels still to come). One
 * that repeats a goal on the stack, or that a limit leaves no share or time when its turn comes, is
 * not started: its result says why.
 */
async function pursueLevel(g: Goal, level: number[], later: number): Promise<GoalResult[]> {
  const stack = [...g.node.stack, g.node.goal];
  const evidence = evidenceFor(g.node.evidence, g.children);
  const subGoals = level.map((i) => ({ goal: g.planned[i], position: i + 1, cycle: findCycle(g.planned[i], stack) }));
  const shares = shareLevel(subGoals.filter((s) => !s.cycle).length, later, g.ledger.left());
  const slots = new Slots(g.settings.maxParallelGoals ?? subGoals.length);
  let next = 0;
  return Promise.all(
    subGoals.map(({ goal, position, cycle }) => {
      if (cycle) return results.cycleDetected(goal, g.depth + 1, cycle);
      const share = shares[next++];
      if ('refused' in share) return refuse(g, goal, g.ledger.violation(share.refused));
      return slots.run(async () => {
        const stop = g.ledger.check('start');
        if (stop) return refuse(g, goal, stop);
        return pursueChild(g, { goal, position, stack, evidence }, share);
      });
    }),
  );
}

/** Pursues a sub-goal as a child `pursueGoal` workflow (the recursion), with `grant` as its budgets. */
async function pursueChild(
  g: Goal,
  child: Pick<GoalNode, 'goal' | 'stack' | 'evidence'> & { position: number },
  grant: Grant,
): Promise<GoalResult> {
  const path = [...g.node.path, child.position];
  const workflowId = goalWorkflowId(g.node.rootId, path);
  const node: GoalNode = {
    ...g.node,
    path,
    goal: child.goal,
    stack: child.stack,
    evidence: child.evidence,
    budget: { goals: grant.goals, deadlineMs: g.clock.childDeadlineMs, tokens: grant.tokens, costUsd: grant.costUsd },
    others: otherGoals(g.planned, child.goal, g.node.others),
  };
  // The tree's input as the root was given it (its goal, tools and settings), with the child's own node.
  // The output schema is the root's alone.
  const { node: _parent, output: _rootOnly, ...tree } = g.input;
  try {
    const result = await executeChild(pursueGoal, {
      workflowId,
      args: [{ ...tree, node }],
      workflowExecutionTimeout: g.clock.childTimeoutMs(),
      staticSummary: workflowSummary(child.goal),
      ...placed(g),
    });
    g.ledger.childReported(result);
    return result;
  } catch (err) {
    if (isCancellation(err)) throw err;
    g.ledger.childLost(grant);
    return results.lost(
      child.goal,
      g.depth + 1,
      workflowId,
      grant.goals,
      timedOut(err) ? 'timed out' : { failure: describeFailure(err) },
    );
  }
}

/** One goal being pursued: its input, the tree's settings and its node, its ledger and clock, and what it has so far. */
interface Goal {
  readonly input: GoalInput;
  readonly settings: TreeSettings;
  readonly node: GoalNode;
  readonly id: string;
  readonly depth: number;
  readonly ledger: Ledger;
  readonly clock: GoalClock;
  /** Its sub-goals' descriptions, once decomposed. */
  planned: string[];
  /** Its sub-goals' results, level by level, those never started included. */
  readonly children: GoalResult[];
  /** The limits that kept sub-goals from starting, in order. */
  readonly refusals: Violation[];
  /** What its result's limitations will say besides its synthesis (a dependency problem, a failed achievement check). */
  readonly notes: string[];
}

/** Opens the goal at `node`: its clock's timers start now, and its ledger holds its share of the budgets. */
function openGoal(input: GoalInput, settings: TreeSettings, node: GoalNode): Goal {
  const depth = node.stack.length;
  const clock = goalClock(node.budget.deadlineMs, node.path.length === 0);
  const ledger = new Ledger({ budget: node.budget, price: node.price, depth, limits: settings }, clock);
  return {
    input,
    settings,
    node,
    id: goalWorkflowId(node.rootId, node.path),
    depth,
    ledger,
    clock,
    planned: [],
    children: [],
    refusals: [],
    notes: [],
  };
}

/** The tree's place in the task queues (its input's priority fields), for the goal's activities and children. */
function placed(g: Goal) {
  return withPriority(temporalPriority(g.input));
}

/** Sets the goal's current details (the Web UI shows them): the goal, then `state`. */
function show(g: Goal, state: string): void {
  setCurrentDetails(`Goal: ${g.node.goal}\n\n${state}`);
}

/** What the goal has so far, for the result builders. */
function soFar(g: Goal): results.GoalSoFar {
  return {
    goal: g.node.goal,
    workflowId: g.id,
    depth: g.depth,
    children: g.children,
    planned: g.planned.length,
    notes: g.notes,
    spent: g.ledger.spent,
  };
}

/** A sub-goal `violation` keeps from starting: remembered for the goal's own result. */
function refuse(g: Goal, goal: string, violation: Violation): GoalResult {
  g.refusals.push(violation);
  return results.refused(goal, g.depth + 1, violation);
}

type Component<I, T> = ActivityFunctionWithOptions<(input: I) => Promise<ComponentOutput<T>>>;
type Asked<T> = { ok: true; value: T } | { ok: false; stop: Violation } | { ok: false; error: string };

/**
 * One model step of the goal (a component): `stop` when a limit forbids it, else the
 * component's answer to the goal's context plus `extra`. A reply that does not match the schema is
 * shown to the model once, with the error; a second such reply, or a failed activity, is an `error`.
 */
async function ask<I extends GoalContextInput, T>(
  g: Goal,
  name: string,
  component: Component<I, T>,
  extra: Omit<I, keyof GoalContextInput>,
): Promise<Asked<T>> {
  const stop = g.ledger.check('work');
  if (stop) return { ok: false, stop };
  const { model, goal, stack, tools, evidence } = g.node;
  const input = { model, rootGoal: g.input.goal, goal, stack, tools, evidence, ...extra } as I;
  const call = (request: I, summary: string) =>
    component.executeWithOptions(
      {
        ...DEFAULT_MODEL_ACTIVITY_OPTIONS,
        summary,
        ...placed(g),
        ...(g.node.modelQueue && { taskQueue: g.node.modelQueue }),
      },
      [request],
    );
  show(g, `Asking the model: ${name}`);
  try {
    let output = await call(input, name);
    g.ledger.spend(output.usage);
    if (!output.ok) {
      output = await call(
        { ...input, repair: { reply: output.reply, error: output.error } },
        `${name} · retry (invalid reply)`,
      );
      g.ledger.spend(output.usage);
    }
    if (output.ok) return { ok: true, value: output.value };
    return { ok: false, error: `${name}: the model's reply did not match the schema twice (${output.error})` };
  } catch (err) {
    if (isCancellation(err)) throw err;
    return { ok: false, error: `${name} failed: ${describeFailure(err)}` };
  }
}

/** The goal's result when a step could not be taken: `constrained` by the limit that forbade it, or `failed`. */
function stopped(g: Goal, asked: Exclude<Asked<unknown>, { ok: true }>): GoalResult {
  return 'stop' in asked ? results.constrained(soFar(g), asked.stop) : results.failed(soFar(g), asked.error);
}
