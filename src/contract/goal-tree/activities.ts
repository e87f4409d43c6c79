import type {
  Achievement,
  AnswerInput,
  AssessInput,
  Assessment,
  ComponentOutput,
  DecomposeInput,
  Decomposition,
  ResolvedGoalRun,
  ResolveGoalInput,
  ResultsInput,
  ShapeOutputInput,
  ShapeOutputResult,
  Synthesis,
} from './pursue-goal';

/**
 * The goal tree's activities: their names, said once, and their signatures. The worker's activities
 * satisfy `GoalTreeActivities` (src/activities/goal-tree/components.ts), the workflow proxies it, and
 * the client reads a tree back from the histories by these names (src/client/goal-tree.ts), so an
 * activity renamed in one place and not the others fails the build. Free of zod: workflow code and
 * the workflow interceptors import it.
 */
export const GOAL_TREE_ACTIVITIES = {
  /** Settles the model, its price, the tools and the webhooks of a tree once, at its root. */
  resolve: 'resolveGoal',
  /** Can the goal be executed directly, or must it be decomposed? */
  assess: 'assessGoal',
  /** The goal's sub-goals and their dependencies. */
  decompose: 'decomposeGoal',
  /** After each level of sub-goals: is the goal achieved? */
  checkAchieved: 'checkAchieved',
  /** The sub-goals' results combined into the goal's report. */
  synthesize: 'synthesizeGoal',
  /** An atomic goal that needs no tools, answered directly. */
  answer: 'answerGoal',
  /** The root's report as JSON of the tree's output schema. */
  shapeOutput: 'shapeGoalOutput',
} as const;

export type GoalTreeActivityName = (typeof GOAL_TREE_ACTIVITIES)[keyof typeof GOAL_TREE_ACTIVITIES];

const A = GOAL_TREE_ACTIVITIES;

/** What each of the goal tree's activities takes and returns, by its name. */
export interface GoalTreeActivities {
  [A.resolve](input: ResolveGoalInput): Promise<ResolvedGoalRun>;
  [A.assess](input: AssessInput): Promise<ComponentOutput<Assessment>>;
  [A.decompose](input: DecomposeInput): Promise<ComponentOutput<Decomposition>>;
  [A.checkAchieved](input: ResultsInput): Promise<ComponentOutput<Achievement>>;
  [A.synthesize](input: ResultsInput): Promise<ComponentOutput<Synthesis>>;
  [A.answer](input: AnswerInput): Promise<ComponentOutput<Synthesis>>;
  [A.shapeOutput](input: ShapeOutputInput): Promise<ShapeOutputResult>;
}

/** The goal tree's activities that call the model once each (for traces and metrics). */
export const GOAL_TREE_MODEL_ACTIVITIES: readonly GoalTreeActivityName[] = [
  A.assess,
  A.decompose,
  A.checkAchieved,
  A.synthesize,
  A.answer,
];
