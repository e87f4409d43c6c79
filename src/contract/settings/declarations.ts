/**
 * Every setting of a run, declared once: its type and bounds, its default, one line of doc, and the
 * layers that may set it. The contract's schemas, the agent definition, the goal tree's input, the
 * worker's defaults and environment variables, the CLI's flags and the docs' table are all made from
 * this table (docs/contract.md). Free of zod on purpose: workflow code reads the defaults, and the
 * schemas are built from these declarations by `./schemas`.
 *
 * A setting's name is the same everywhere: the input field, the agent's field, the CLI flag
 * (`--kebab-case`) and the environment variable (`WAVELOOP_SNAKE_CASE`). A duration is a number of
 * seconds and says so in its name.
 */

/**
 * Where a setting may be given: a run's input, an agent, a worker (its options and environment), a
 * goal tree's input, a tool (its own approval deadline).
 */
export type Layer = 'run' | 'agent' | 'worker' | 'tree' | 'tool';

/** The type of a setting's value, with its bounds. */
export type SettingType =
  | { kind: 'int'; min: number; max: number }
  | { kind: 'number'; min: number; max: number; exclusiveMin?: boolean }
  | { kind: 'boolean' }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'string' }
  | { kind: 'names'; values?: readonly string[] }
  | { kind: 'webhooks' }
  | { kind: 'fairnessKey' };

export interface SettingDeclaration {
  type: SettingType;
  /** One line: what it does. */
  doc: string;
  layers: readonly Layer[];
  /** The value when no layer gives one; none: the setting is off unless given. */
  default?: unknown;
  /** A goal tree's default, where it differs from a run's. */
  treeDefault?: unknown;
  /** `union`: the layers' lists are joined (each item once) instead of the first one winning. */
  merge?: 'union';
  /** Offered as a flag (`--kebab-case`) of `waveloop run` and `schedule create|update` (a run's), `waveloop goal` (a tree's). */
  flag?: boolean;
}

const seconds = (max: number) => ({ kind: 'number', min: 0, max, exclusiveMin: true }) as const;
const DAY = 86_400;

export const SETTINGS = {
  model: {
    type: { kind: 'string' },
    doc: 'The model name the endpoint serves.',
    layers: ['run', 'agent', 'worker', 'tree'],
    default: 'gpt-4o-mini',
    flag: true,
  },
  planner: {
    type: { kind: 'enum', values: ['native', 'json'] },
    doc: '`native`: the model’s own tool calls; `json`: one JSON wave plan a turn.',
    layers: ['run', 'agent'],
    default: 'native',
    flag: true,
  },
  maxIterations: {
    type: { kind: 'int', min: 1, max: 10_000 },
    doc: 'Model calls of the loop before the run ends `max_iterations`.',
    layers: ['run', 'agent'],
    default: 20,
    flag: true,
  },
  maxTokens: {
    type: { kind: 'int', min: 1, max: 1e12 },
    doc: 'Tokens (prompt and completion, every model call) before the run wraps up `budget_exhausted`.',
    layers: ['run', 'agent', 'tree'],
    flag: true,
  },
  maxCostUsd: {
    type: { kind: 'number', min: 0, max: 1e6, exclusiveMin: true },
    doc: 'USD, from the model’s price, before the run wraps up `budget_exhausted` (unknown models cost 0).',
    layers: ['run', 'agent', 'tree'],
    treeDefault: 10,
    flag: true,
  },
  timeoutSeconds: {
    type: seconds(365 * DAY),
    doc: 'Seconds the run may take before it wraps up with an answer from what it has (`deadline`).',
    layers: ['run', 'agent', 'tree'],
    treeDefault: 3_600,
    flag: true,
  },
  maxContextTokens: {
    type: { kind: 'int', min: 1_000, max: 1e9 },
    doc: 'The model’s context window: past 80 % of it the older transcript is summarised (default: known for OpenAI’s models).',
    layers: ['run', 'agent'],
  },
  maxOutputTokens: {
    type: { kind: 'int', min: 16, max: 1_000_000 },
    doc: 'The most tokens one model reply may have (`max_tokens`).',
    layers: ['run', 'agent'],
    default: 4_096,
  },
  maxHistoryEvents: {
    type: { kind: 'int', min: 50, max: 50_000 },
    doc: 'History events after which the run continues as new with a compacted transcript.',
    layers: ['run', 'agent'],
    default: 2_000,
  },
  circuitBreaker: {
    type: { kind: 'int', min: 0, max: 100 },
    doc: 'The same failure, or the same call with the same result, this many times in a row ends the run `circuit_open` (0: never).',
    layers: ['run', 'agent'],
    default: 3,
  },
  toolCallText: {
    type: { kind: 'enum', values: ['recover', 'off'] },
    doc: 'Tool calls a model writes as text: `recover` runs them as the wave, `off` takes the reply as the answer.',
    layers: ['run', 'agent'],
    default: 'recover',
  },
  modelTimeoutSeconds: {
    type: seconds(DAY),
    doc: 'Seconds one attempt of a model call may take.',
    layers: ['run', 'agent', 'worker'],
    default: 600,
  },
  heartbeatSeconds: {
    type: { kind: 'number', min: 1, max: 600 },
    doc: 'Seconds a model or tool call, or a call’s undo, may go unheard of (its worker dead) before it is tried again.',
    layers: ['worker'],
    default: 10,
  },
  modelAttempts: {
    type: { kind: 'int', min: 1, max: 100 },
    doc: 'Attempts of a model call before the run fails `ModelUnavailable`.',
    layers: ['run', 'agent', 'worker'],
    default: 8,
  },
  modelRpm: {
    type: { kind: 'number', min: 0, max: 1e9, exclusiveMin: true },
    doc: 'Model calls a minute, held by the Temporal server across every worker of the task queue (an agent’s: a queue of its own).',
    layers: ['agent', 'worker'],
  },
  modelTpm: {
    type: { kind: 'number', min: 0, max: 1e9, exclusiveMin: true },
    doc: 'Tokens a minute each worker’s model calls may spend, on top of what the endpoint’s rate-limit headers say.',
    layers: ['worker'],
  },
  localModelCalls: {
    type: { kind: 'boolean' },
    doc: 'Model calls run as local activities: one trip through the server less an iteration, no streaming.',
    layers: ['run', 'agent'],
    default: false,
  },
  maxParallelTools: {
    type: { kind: 'int', min: 1, max: 1_000 },
    doc: 'Tool calls of one wave that run at once; the others start as earlier ones finish.',
    layers: ['run', 'agent', 'worker'],
    default: 16,
    flag: true,
  },
  agents: {
    type: { kind: 'names' },
    doc: 'Agents the run may call as tools, each a tool named after the agent: a call runs it as a child run on the task it is given (docs/agents.md).',
    layers: ['run', 'agent'],
  },
  handoffs: {
    type: { kind: 'names' },
    doc: 'Agents the run may hand the conversation over to, each offered as a tool `transfer_to_<agent>`: the run goes on as that agent, with its prompt, tools and rules, and the transcript so far (docs/agents.md#handoffs).',
    layers: ['run', 'agent'],
  },
  maxAgentDepth: {
    type: { kind: 'int', min: 1, max: 20 },
    doc: 'How deep agents may call agents: a call that would start a child this many agents below the root is refused, and the model told why.',
    layers: ['run', 'agent', 'worker'],
    default: 3,
  },
  toolsToApprove: {
    type: { kind: 'names' },
    doc: 'Tools whose calls wait for a person’s approval in this run, besides those whose `requiresApproval` rule says so.',
    layers: ['run', 'agent'],
    merge: 'union',
    flag: true,
  },
  effectsToApprove: {
    type: { kind: 'names', values: ['read', 'idempotent', 'write'] },
    doc: 'Effects (`read`, `idempotent`, `write`) whose calls wait for a person’s approval in this run, besides the tools that say so.',
    layers: ['run', 'agent'],
    merge: 'union',
    flag: true,
  },
  dryRun: {
    type: { kind: 'boolean' },
    doc: 'A dry run: `read` tools run, every other call is held back and answered by the tool’s `dryRun` (or a stub); nothing waits for approval.',
    layers: ['run'],
    default: false,
    flag: true,
  },
  onFailure: {
    type: { kind: 'enum', values: ['keep', 'undo'] },
    doc: 'What a run that fails, is cancelled, or ends `circuit_open` or `invalid_output` does with the calls that changed something: `keep` them, or `undo` them, later first, by their tools’ `undo` (calls without one are passed by).',
    layers: ['run', 'agent'],
    default: 'keep',
    flag: true,
  },
  approvalTimeoutSeconds: {
    type: seconds(365 * DAY),
    doc: 'Seconds a call waits for a decision before `onApprovalTimeout` decides it (none: forever).',
    layers: ['run', 'agent', 'tool'],
  },
  onApprovalTimeout: {
    type: { kind: 'enum', values: ['deny', 'approve'] },
    doc: 'What a passed approval deadline decides.',
    layers: ['run', 'agent', 'tool'],
    default: 'deny',
  },
  fourEyes: {
    type: { kind: 'boolean' },
    doc: 'The person who started a run may not approve its calls (a rule may also ask for it, call by call).',
    layers: ['agent'],
    default: false,
  },
  answerTimeoutSeconds: {
    type: seconds(365 * DAY),
    doc: 'Seconds `ask_question` waits for an answer before telling the model nobody answered (none: forever).',
    layers: ['run', 'agent'],
  },
  conversation: {
    type: { kind: 'boolean' },
    doc: 'A chat: after each answer the run waits for the person’s next message (`send`) or its end (`end`).',
    layers: ['run', 'agent'],
    default: false,
  },
  idleTimeoutSeconds: {
    type: seconds(365 * DAY),
    doc: 'Seconds a conversation waits for the next message before it ends.',
    layers: ['run', 'agent'],
    default: 7 * DAY,
  },
  outputRepairs: {
    type: { kind: 'int', min: 0, max: 20 },
    doc: 'Times an answer that does not match `output` goes back to the model before the run ends `invalid_output`.',
    layers: ['run', 'agent'],
    default: 2,
  },
  priority: {
    type: { kind: 'int', min: 1, max: 5 },
    doc: 'The run’s place in the task queues, 1 (first) to 5 (last); its calls and children get it too (default: the server’s, 3).',
    layers: ['run', 'agent', 'tree'],
    flag: true,
  },
  fairnessKey: {
    type: { kind: 'fairnessKey' },
    doc: 'A tenant: runs with different keys share the task queues in proportion to their weights (≤ 64 bytes).',
    layers: ['run', 'agent', 'tree'],
    flag: true,
  },
  fairnessWeight: {
    type: { kind: 'number', min: 0.001, max: 1_000 },
    doc: 'The fairness key’s share, 0.001 to 1,000 (default: the server’s, 1).',
    layers: ['run', 'agent', 'tree'],
    flag: true,
  },
  webhooks: {
    type: { kind: 'webhooks' },
    doc: 'URLs told when the run waits for a person and when it ends: http(s), or `slack:<url>` (each layer’s are joined).',
    layers: ['run', 'agent', 'worker', 'tree'],
    merge: 'union',
    flag: true,
  },
  maxDepth: {
    type: { kind: 'int', min: 1, max: 50 },
    doc: 'Levels of a goal tree: a goal at the deepest level is executed directly.',
    layers: ['tree'],
    treeDefault: 5,
    flag: true,
  },
  maxGoals: {
    type: { kind: 'int', min: 1, max: 10_000 },
    doc: 'Goals in a whole goal tree, the root included.',
    layers: ['tree'],
    treeDefault: 50,
    flag: true,
  },
  maxParallelGoals: {
    type: { kind: 'int', min: 1, max: 100 },
    doc: 'Sub-goals of one level that run at once under each goal (none: all of the level, at most 8).',
    layers: ['tree'],
    flag: true,
  },
} as const satisfies Record<string, SettingDeclaration>;

export type SettingName = keyof typeof SETTINGS;
export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

/** The names of the settings a layer may give. */
export type SettingsOf<L extends Layer> = {
  [K in SettingName]: L extends (typeof SETTINGS)[K]['layers'][number] ? K : never;
}[SettingName];

type ValueOf<T extends SettingType> = T extends { kind: 'int' | 'number' }
  ? number
  : T extends { kind: 'boolean' }
    ? boolean
    : T extends { kind: 'enum'; values: readonly (infer V)[] }
      ? V
      : T extends { kind: 'names' | 'webhooks' }
        ? string[]
        : string;

/** The value type of setting `K`. */
export type SettingValue<K extends SettingName> = ValueOf<(typeof SETTINGS)[K]['type']>;

/** The settings a layer gives, each optional: an agent's, a worker's defaults, a run's. */
export type LayerSettings<L extends Layer> = { [K in SettingsOf<L>]?: SettingValue<K> };

/** The names of the settings for which a layer may give a value, in declaration order. */
export function settingNamesOf(layer: Layer): SettingName[] {
  return SETTING_NAMES.filter((name) => (SETTINGS[name].layers as readonly Layer[]).includes(layer));
}

/** `maxParallelTools` → `--max-parallel-tools`. */
export function flagOf(name: SettingName): string {
  return `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** `maxParallelTools` → `WAVELOOP_MAX_PARALLEL_TOOLS`. */
export function envVarOf(name: SettingName): string {
  return `WAVELOOP_${name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
}
