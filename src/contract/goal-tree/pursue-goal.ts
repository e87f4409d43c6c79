import { z } from 'zod';
import type { Usage } from '../agent-loop';
import { parseWorkflowInput } from '../issues';
import { RENAMED_TREE_FIELDS } from '../settings/renamed';
import { renamedFieldsShape, settingsShape } from '../settings/schemas';
import { MAX_SUB_GOALS } from './defaults';

/**
 * The contract of the `pursueGoal` workflow: a goal pursued recursively as a tree of
 * child workflows. JSON-safe, shared by workflow, activities, client and tests.
 */

export const GoalStatusSchema = z.enum(['achieved', 'synthesized', 'constrained', 'cycle_detected', 'failed']);
export type GoalStatus = z.infer<typeof GoalStatusSchema>;

/** Which limit made a goal `constrained`. */
export type ConstraintKind = 'depth' | 'goals' | 'time' | 'tokens' | 'cost';

/** What later goals learn of an earlier one: compact, so that inputs stay small however big the tree. */
export const EvidenceSchema = z.strictObject({
  goal: z.string(),
  status: GoalStatusSchema,
  summary: z.string(),
  key_findings: z.array(z.string()),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

const PriceSchema = z.strictObject({ inputPerMTok: z.number().min(0), outputPerMTok: z.number().min(0) });

/**
 * What a parent gives a child goal besides the public input: where it is in the tree, what it
 * pursues, its ancestors (`stack`, root first), the evidence so far and its share of the budgets.
 */
export const GoalNodeSchema = z.strictObject({
  /** Workflow id of the tree's root; the node's id is `<rootId>/<path joined by dots>`. */
  rootId: z.string().min(1),
  /** 1-based position of the node under each ancestor: `[1, 2]` is `<root>/1.2`; `[]` is the root. */
  path: z.array(z.number().int().min(1)),
  goal: z.string().trim().min(1),
  /** The goals above this one, root first (`[]` at the root). */
  stack: z.array(z.string()),
  evidence: z.array(EvidenceSchema),
  budget: z.strictObject({
    /** Goals this subtree may hold, itself included. */
    goals: z.number().int().min(1),
    /** Epoch milliseconds by which the goal must be done (its workflow execution timeout). */
    deadlineMs: z.number(),
    tokens: z.number().min(0).optional(),
    costUsd: z.number().min(0).optional(),
  }),
  /**
   * Goals elsewhere in the tree: the other sub-goals its parent and their ancestors planned, so a
   * decomposition does not plan them again (`[]` at the root).
   */
  others: z.array(z.string()),
  /** Resolved once by the root: the model, its price, the tool allowlist. */
  model: z.string().min(1),
  price: PriceSchema.nullable(),
  tools: z.array(z.string()),
  /** The rate-limited task queue of the tree's model steps (`WAVELOOP_MODEL_RPM`), when its worker has one. */
  modelQueue: z.string().min(1).optional(),
});
export type GoalNode = z.infer<typeof GoalNodeSchema>;

/**
 * A goal tree's input: the task (`goal`, `tools`, `agent`, `output`) and its settings with a run's
 * names, at the top level, each declared once in `../settings/declarations` (the limits `maxDepth`,
 * `maxGoals`, `maxParallelGoals`, `timeoutSeconds`, `maxCostUsd`, `maxTokens`, and `model`, the
 * priority fields and `webhooks`); their defaults are resolved by `resolveTreeSettings`. A field
 * that was renamed (`objective`, `constraints`, `maxTimeSeconds`) is refused with its new name.
 */
export const GoalInputSchema = z.strictObject({
  goal: z.string().trim().min(1, 'goal must be a non-empty string'),
  tools: z.array(z.string().trim().min(1)).optional(),
  /**
   * The agent profile the tree's tool loops run as (the sub-agent they delegate to): its
   * system prompt and limits, and its tools and model unless given. Default: the `default` agent.
   */
  agent: z.string().trim().min(1).optional(),
  /**
   * The shape of the root's result, a JSON Schema object: the tree's result then carries `output`,
   * the model's JSON of that shape made from the root's report (or `outputErrors`). Checked as a
   * schema by the client and by the `shapeGoalOutput` activity (ajv stays out of workflow code).
   */
  output: z.record(z.string(), z.unknown()).optional(),
  /** Who started the tree (as `AgentLoopInput.startedBy`): its tool loops' starter, whose calls four eyes bar them from approving. */
  startedBy: z.string().trim().min(1).max(200).optional(),
  /** Set by a parent goal for its children; absent at the root. */
  node: GoalNodeSchema.optional(),
  ...settingsShape('tree'),
  ...renamedFieldsShape(RENAMED_TREE_FIELDS),
});
export type GoalInput = z.infer<typeof GoalInputSchema>;

/** Validates a `pursueGoal` input; what is wrong fails as a non-retryable `InvalidInput` naming each problem. */
export function parseGoalInput(rawInput: unknown): GoalInput {
  return parseWorkflowInput(GoalInputSchema, rawInput, 'pursueGoal');
}

/** What a client sends to start a tree (the `node` field is the tree's own business). */
export const GoalTreeInputSchema = GoalInputSchema.omit({ node: true });
export type GoalTreeInput = z.infer<typeof GoalTreeInputSchema>;

/**
 * What the model wrote about a goal, snake_case as it writes it: a synthesis of its sub-goals'
 * results, a direct answer, or what its tool loop found (the loop's answer, its tool calls, their
 * results). A goal that ended without one (a limit, a failure) has what its completed sub-goals
 * found, its reason as the summary.
 */
export interface GoalReport {
  summary: string;
  key_findings: string[];
  /** 0 to 1; 0 when the goal ended without a synthesis or an answer. */
  confidence: number;
  limitations: string[];
  /**
   * What backs the findings, as found: a synthesis quotes it from the sub-goals' results;
   * a goal its tool loop executed has its tools' results. At most 12 items of 600 characters.
   */
  raw_evidence?: string[];
}

/**
 * A goal's result: what the model wrote (`report`) apart from what the runtime knows of the goal
 * (its status, workflow, depth, what it and its subtree used), and its sub-goals' results.
 */
export interface GoalResult {
  goal: string;
  status: GoalStatus;
  report: GoalReport;
  children: GoalResult[];
  /** The goal's workflow; absent for a sub-goal that was never started (a cycle, a limit). */
  workflowId?: string;
  depth: number;
  /** Why the goal is `constrained`, `cycle_detected` or `failed`. */
  reason?: string;
  constraint?: ConstraintKind;
  /** What the goal and its subtree used: goals (itself included), tokens, USD. */
  goals: number;
  usage: Usage;
  costUsd: number;
  /** With an output schema, at the root: the report's JSON of that shape, when the model made one that matches. */
  output?: unknown;
  /** With an output schema, at the root: why there is no `output` (what was wrong with the model's last try). */
  outputErrors?: string[];
}

/** `shapeGoalOutput`: the root's report, to be written as JSON of the tree's output schema. */
export interface ShapeOutputInput {
  model: string;
  /** The tree's goal. */
  goal: string;
  schema: Record<string, unknown>;
  result: Pick<GoalResult, 'status' | 'report'>;
}

/** The output (or why there is none) and what the model calls used. */
export interface ShapeOutputResult {
  output?: unknown;
  outputErrors?: string[];
  usage: Usage;
}

// Structured outputs of the model components, sent as `response_format`.

export const AssessmentSchema = z.object({
  directly_executable: z.boolean().describe('true when the goal maps to one concrete action'),
  reasoning: z.string(),
  action: z
    .object({
      kind: z
        .enum(['use_tools', 'answer'])
        .describe('use_tools: needs the available tools; answer: can be answered from knowledge and evidence'),
      description: z.string().describe('what to do'),
    })
    .nullable()
    .optional()
    .describe('the action, when directly executable'),
  decomposition_needed_because: z.string().nullable().optional(),
});
export type Assessment = z.infer<typeof AssessmentSchema>;

export const SubGoalSchema = z.object({
  description: z.string().trim().min(1),
  rationale: z.string(),
  dependencies: z.array(z.number().int()).describe('0-based indices of the sub-goals this one needs the results of'),
  estimated_complexity: z.enum(['atomic', 'simple', 'moderate', 'complex']),
});
export type SubGoal = z.infer<typeof SubGoalSchema>;

export const DecompositionSchema = z.object({
  sub_goals: z.array(SubGoalSchema).min(1).max(MAX_SUB_GOALS),
  coverage: z.string().describe('how the sub-goals together cover the goal'),
});
export type Decomposition = z.infer<typeof DecompositionSchema>;

export const AchievementSchema = z.object({
  achieved: z.boolean(),
  confidence: z.number().min(0).max(1),
  reasoning: z.string(),
  remaining_gaps: z.array(z.string()),
});
export type Achievement = z.infer<typeof AchievementSchema>;

export const SynthesisSchema = z.object({
  summary: z.string(),
  key_findings: z.array(z.string()),
  confidence: z.number().min(0).max(1),
  limitations: z.array(z.string()),
  raw_evidence: z
    .array(z.string())
    .optional()
    .describe('the facts from the results that back the findings, quoted as they were found (figures, names, dates)'),
});
export type Synthesis = z.infer<typeof SynthesisSchema>;

/** The components, each with the name of its JSON Schema in `response_format`. */
export const GOAL_COMPONENT_SCHEMAS = {
  assessment: AssessmentSchema,
  decomposition: DecompositionSchema,
  achievement: AchievementSchema,
  synthesis: SynthesisSchema,
} as const;
export type GoalSchemaName = keyof typeof GOAL_COMPONENT_SCHEMAS;

/** The situation of a goal, as every component sees it. */
export interface GoalContextInput {
  model: string;
  /** The goal of the whole tree, its root's. */
  rootGoal: string;
  /** This goal. */
  goal: string;
  /** Ancestors, root first. */
  stack: string[];
  tools: string[];
  evidence: Evidence[];
  /** A reply that did not parse, shown to the model once with the error. */
  repair?: { reply: string; error: string };
}

export interface DecomposeInput extends GoalContextInput {
  /** Why the assessment said the goal needs decomposing. */
  rationale?: string;
  /** Goals elsewhere in the tree, not to be planned again (`GoalNode.others`). */
  others?: string[];
}

export interface AssessInput extends GoalContextInput {
  /** False at the deepest level or with no goals left: the goal must be executed directly. */
  canDecompose: boolean;
}
export interface AnswerInput extends GoalContextInput {
  action: string;
}
/** For the achievement check and synthesis: the results of the goal's sub-goals so far. */
export interface ResultsInput extends GoalContextInput {
  results: Evidence[];
}

/**
 * A component's outcome. A reply that does not match the schema is not an activity failure (a
 * retry would just ask again): the workflow shows it to the model once, then gives up.
 */
export type ComponentOutput<T> =
  { ok: true; value: T; usage: Usage } | { ok: false; reply: string; error: string; usage: Usage };

/** `resolveGoal`: the root's input, from which it settles the model, the tools and the webhooks. */
export type ResolveGoalInput = Pick<GoalInput, 'model' | 'tools' | 'agent' | 'webhooks'>;

/** `resolveGoal`: what the root settles once for the whole tree. */
export interface ResolvedGoalRun {
  model: string;
  price: { inputPerMTok: number; outputPerMTok: number } | null;
  tools: string[];
  /** The rate-limited task queue its model steps go to (`ModelQueues`), when the worker has one. */
  modelQueue?: string;
  /** Where the tree's webhooks go: the input's, the agent's and the worker's URLs. */
  webhooks?: string[];
}
