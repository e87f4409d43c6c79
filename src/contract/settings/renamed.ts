/**
 * Names that changed before 1.0, old → new: a client, a config file or an agent that still sends an
 * old name is refused with a message naming the new one, never ignored. docs/contract.md has the
 * same table for people.
 */
export type RenamedFields = Readonly<Record<string, string>>;

/** An `agentLoop` input's old names. */
export const RENAMED_RUN_FIELDS: RenamedFields = {
  requireApproval: 'toolsToApprove',
};

/** A goal tree's (`pursueGoal`) old names: its task is `goal`, and its limits sit at the top level with a run's names. */
export const RENAMED_TREE_FIELDS: RenamedFields = {
  objective: 'goal',
  constraints: 'maxDepth, maxGoals, timeoutSeconds, maxCostUsd, maxTokens and maxParallelGoals at the top level',
  maxTimeSeconds: 'timeoutSeconds',
};

/** An agent's (`defineAgent`) old names: its limits sit at the top level, with a run's names. */
export const RENAMED_AGENT_FIELDS: RenamedFields = {
  limits: 'the same fields at the top level of the agent (maxIterations, maxTokens, …)',
};

/** A tool's (`defineTool`) old names: durations are in seconds. */
export const RENAMED_TOOL_FIELDS: RenamedFields = {
  timeoutMs: 'timeoutSeconds',
};

/** A tool's `retry`'s old names: its intervals are in seconds. */
export const RENAMED_RETRY_FIELDS: RenamedFields = {
  initialIntervalMs: 'initialIntervalSeconds',
  maximumIntervalMs: 'maximumIntervalSeconds',
};

/** An MCP server entry's old names. */
export const RENAMED_MCP_FIELDS: RenamedFields = {
  requireApproval: 'toolsToApprove',
  timeoutMs: 'timeoutSeconds',
};

/** `createWorker`'s old options: the worker's settings of its runs are `defaults`. */
export const RENAMED_WORKER_OPTIONS: RenamedFields = {
  defaultModel: 'defaults.model',
  modelTimeoutMs: 'defaults.modelTimeoutSeconds',
  maxParallelTools: 'defaults.maxParallelTools',
  modelRpm: 'defaults.modelRpm',
  modelTpm: 'defaults.modelTpm',
};

/** The worker's old environment variables. */
export const RENAMED_ENV_VARS: RenamedFields = {
  WAVELOOP_MODEL_TIMEOUT: 'WAVELOOP_MODEL_TIMEOUT_SECONDS (a number of seconds)',
  WAVELOOP_WEBHOOK_URL: 'WAVELOOP_WEBHOOKS',
  WAVELOOP_SHUTDOWN_GRACE: 'WAVELOOP_SHUTDOWN_GRACE_SECONDS (a number of seconds)',
};

/** "`objective` is now `goal`". */
export function renamedMessage(old: string, now: string): string {
  return `\`${old}\` is now ${/^[\w.]+$/.test(now) ? `\`${now}\`` : now}`;
}

/** The problems of `value`'s renamed fields (its own keys only), for checks outside zod. */
export function renamedFieldProblems(value: unknown, renamed: RenamedFields): string[] {
  if (value === null || typeof value !== 'object') return [];
  return Object.keys(value)
    .filter((key) => Object.hasOwn(renamed, key))
    .map((key) => renamedMessage(key, renamed[key]));
}
