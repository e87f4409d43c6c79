import { ApplicationFailure, type RetryPolicy } from '@temporalio/common';
import type { AgentDefinition } from '../agents/define';
import type { ModelCallPolicy, ResolvedRun, ResolveRunInput, ToolApproval, ToolInfo } from '../contract/activity-io';
import {
  DEFAULT_CIRCUIT_BREAKER,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_MAX_PARALLEL_TOOLS,
  DEFAULT_MODEL_RETRY,
  DEFAULT_MODEL_TIMEOUT_MS,
  DEFAULT_TOOL_RETRY,
  DEFAULT_TOOL_TIMEOUT_MS,
} from '../contract/activity-options';
import { parseAgentLoopInput, type AgentLoopInput } from '../contract/agent-loop';
import { FailureType } from '../contract/errors';
import type { ModelQueues } from '../contract/flow/model-queues';
import { temporalPriority } from '../contract/flow/priority';
import { priceOf, type ModelPrice } from '../contract/model/pricing';
import { outputInstructions } from '../contract/output/output';
import { jsonPlannerInstructions } from '../contract/plan';
import type { AnyTool } from '../tools/define';
import { approvalRuleOf } from './approval-rule';
import { contextWindowOf } from './context-windows';
import { toolParametersSchema } from './model/tool-schema';
import { outputSpecOf } from './output/output-spec';
import type { Registry } from './registry';

export interface ResolveRunDeps {
  registry: Registry;
  defaultModel: string;
  now: () => Date;
  /** Prices overriding the default table, for `maxCostUsd`. */
  modelPrices?: Readonly<Record<string, ModelPrice>>;
  /** Whether the namespace has waveloop's search attributes (checked by the worker at start). */
  searchAttributes?: () => Promise<boolean>;
  /** How runs' model calls are retried (default `DEFAULT_MODEL_RETRY`); a run or agent may set the attempts. */
  modelRetry?: RetryPolicy;
  /** How long one attempt of a run's model call may take (default `DEFAULT_MODEL_TIMEOUT_MS`); a run or agent may say. */
  modelTimeoutMs?: number;
  /** How many tool calls of a wave run at once when neither the run nor its agent says (default `DEFAULT_MAX_PARALLEL_TOOLS`). */
  maxParallelTools?: number;
  /** The worker's rate-limited model queues (`WAVELOOP_MODEL_RPM`, agents' `modelRpm`). */
  modelQueues?: ModelQueues;
  /** The worker's webhooks (`WAVELOOP_WEBHOOK_URL`), told by every run besides its agent's and its own. */
  webhooks?: readonly string[];
}

/**
 * Merges the run's input with its agent profile: the system prompt (with today's date, which the
 * date tools need the model to know), the model, the tool allowlist and the limits, each the
 * input's, else the agent's, else the worker's, else the default.
 * An unknown agent or tool fails with a non-retryable `InvalidInput`.
 */
export function createResolveRun({
  registry,
  defaultModel,
  now,
  modelPrices,
  searchAttributes,
  modelRetry,
  modelTimeoutMs,
  maxParallelTools,
  modelQueues,
  webhooks,
}: ResolveRunDeps) {
  return async function resolveRun(rawInput: ResolveRunInput): Promise<ResolvedRun> {
    // The workflow hands over the input as sent: validation needs zod, which workflow code avoids
    // (src/workflows/lazy.ts).
    const input = parseAgentLoopInput(rawInput);
    const agentName = input.agent ?? 'default';
    const agent = registry.agents.get(agentName);
    if (!agent) {
      throw invalidInput(`Unknown agent "${agentName}". Known agents: ${[...registry.agents.keys()].join(', ')}.`);
    }
    const toolNames = input.tools ?? agent.tools ?? [...registry.tools.keys()];
    const unknown = toolNames.filter((name) => !registry.tools.has(name));
    if (unknown.length > 0) {
      throw invalidInput(
        `Unknown tool${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}. ` +
          `Registered tools: ${[...registry.tools.keys()].join(', ')}.`,
      );
    }
    const needApproval = new Set(input.requireApproval ?? []);
    const notAllowed = [...needApproval].filter((name) => !toolNames.includes(name));
    if (notAllowed.length > 0) {
      throw invalidInput(
        `requireApproval names tools the run does not have: ${notAllowed.map((n) => `"${n}"`).join(', ')}.`,
      );
    }
    const modelQueue = modelQueues?.agents[agent.name] ?? modelQueues?.default;
    if (modelQueue && input.localModelCalls) {
      throw invalidInput(
        `localModelCalls cannot run under a model rate limit (${modelQueue.requestsPerMinute} calls a minute on task queue ` +
          `"${modelQueue.taskQueue}"): a local model call never goes through a task queue, so the server could not hold it ` +
          'to the limit. Leave localModelCalls out, or run it on workers without WAVELOOP_MODEL_RPM.',
      );
    }
    const planner = input.planner ?? 'native';
    const uniqueNames = [...new Set(toolNames)];
    const instructions =
      planner === 'json'
        ? `\n\n${jsonPlannerInstructions(uniqueNames.map((name) => ({ ...registry.tools.get(name)!, parameters: toolParametersSchema(registry.tools.get(name)!) })))}`
        : '';
    const output = typedOutput(input, agent);
    const model = input.model ?? agent.model ?? defaultModel;
    const today = now().toISOString().slice(0, 10);
    const weekday = now().toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' });
    return {
      agent: agent.name,
      system:
        `${input.system ?? agent.system}${instructions}` +
        (output ? `\n\n${outputInstructions(output.schema, planner)}` : '') +
        `\n\nToday is ${today} (${weekday}).`,
      model,
      maxIterations: input.maxIterations ?? agent.limits?.maxIterations ?? DEFAULT_MAX_ITERATIONS,
      planner,
      tools: uniqueNames.map((name) =>
        toolInfo(registry.tools.get(name)!, approvalOf(name, { input, agent, registry })),
      ),
      budget: {
        maxTokens: input.maxTokens ?? agent.limits?.maxTokens,
        maxCostUsd: input.maxCostUsd ?? agent.limits?.maxCostUsd,
        price: priceOf(model, modelPrices) ?? null,
      },
      circuitBreaker: input.circuitBreaker ?? DEFAULT_CIRCUIT_BREAKER,
      answerTimeoutMs: input.answerTimeoutSeconds === undefined ? undefined : input.answerTimeoutSeconds * 1000,
      idleTimeoutMs: input.idleTimeoutSeconds === undefined ? DEFAULT_IDLE_TIMEOUT_MS : input.idleTimeoutSeconds * 1000,
      ...(input.conversation ? { conversation: true } : {}),
      maxHistoryEvents: input.maxHistoryEvents,
      ...timeoutOf(input.timeoutSeconds ?? agent.limits?.timeoutSeconds),
      ...contextTokens(input.maxContextTokens ?? agent.limits?.maxContextTokens ?? contextWindowOf(model)),
      ...(input.localModelCalls ? { localModelCalls: true } : {}),
      ...(modelQueue ? { modelQueue } : {}),
      ...priorityOf(input, agent),
      maxParallelTools:
        input.maxParallelTools ?? agent.limits?.maxParallelTools ?? maxParallelTools ?? DEFAULT_MAX_PARALLEL_TOOLS,
      searchAttributes: (await searchAttributes?.()) ?? false,
      modelCall: modelCallPolicy(input, agent, { retry: modelRetry, timeoutMs: modelTimeoutMs }),
      maxOutputTokens: input.maxOutputTokens ?? agent.limits?.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
      toolCallText: input.toolCallText ?? agent.toolCallText ?? 'recover',
      ...(output ? { output } : {}),
      ...webhooksOf(input, agent, webhooks),
    };
  };
}

/** The run's webhooks: its own, its agent's and the worker's, each URL once; none: the run tells nobody. */
function webhooksOf(
  input: AgentLoopInput,
  agent: AgentDefinition,
  worker: readonly string[] = [],
): Pick<ResolvedRun, 'webhooks'> {
  const urls = [...new Set([...(input.webhooks ?? []), ...(agent.webhooks ?? []), ...worker])];
  return urls.length ? { webhooks: urls } : {};
}

/** The run's model-call timeout and retries: the input's, else the agent's, else the worker's. */
function modelCallPolicy(
  input: AgentLoopInput,
  agent: AgentDefinition,
  worker: { retry?: RetryPolicy; timeoutMs?: number },
): ModelCallPolicy {
  const seconds = input.modelTimeoutSeconds ?? agent.limits?.modelTimeoutSeconds;
  const attempts = input.modelAttempts ?? agent.limits?.modelAttempts;
  return {
    timeoutMs: seconds === undefined ? (worker.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS) : seconds * 1000,
    retry: {
      ...(worker.retry ?? DEFAULT_MODEL_RETRY),
      ...(attempts === undefined ? {} : { maximumAttempts: attempts }),
    },
  };
}

/** The run's priority fields, each the input's, else the agent's; none set: the run's tasks inherit the workflow's. */
function priorityOf(input: AgentLoopInput, agent: AgentDefinition): Pick<ResolvedRun, 'priority'> {
  const priority = temporalPriority({
    priority: input.priority ?? agent.priority,
    fairnessKey: input.fairnessKey ?? agent.fairnessKey,
    fairnessWeight: input.fairnessWeight ?? agent.fairnessWeight,
  });
  return priority ? { priority } : {};
}

function timeoutOf(seconds: number | undefined): Pick<ResolvedRun, 'timeoutMs'> {
  return seconds === undefined ? {} : { timeoutMs: seconds * 1000 };
}

function contextTokens(tokens: number | undefined): Pick<ResolvedRun, 'contextTokens'> {
  return tokens === undefined ? {} : { contextTokens: tokens };
}

/**
 * When calls of `name` wait for approval in this run: always when the run's `requireApproval` names
 * it; else as the agent's rule for it says, else as the tool's own. A deadline and what it decides
 * come from the run, else the agent, else the tool.
 */
function approvalOf(
  name: string,
  { input, agent, registry }: { input: AgentLoopInput; agent: AgentDefinition; registry: Registry },
): ToolApproval | undefined {
  const tool = registry.tools.get(name)!;
  const rule = input.requireApproval?.includes(name) ? true : approvalRuleOf(registry, agent.name, name);
  if (!rule) return undefined;
  const seconds = input.approvalTimeoutSeconds ?? agent.approvalTimeoutSeconds ?? tool.approvalTimeoutSeconds;
  return {
    when: typeof rule === 'function' ? 'rule' : 'always',
    ...(seconds === undefined ? {} : { timeoutMs: seconds * 1000 }),
    onTimeout: input.onApprovalTimeout ?? agent.onApprovalTimeout ?? tool.onApprovalTimeout ?? 'deny',
  };
}

function toolInfo(tool: AnyTool, approval: ToolApproval | undefined): ToolInfo {
  return {
    name: tool.name,
    timeoutMs: tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    maximumAttempts: tool.retry?.maximumAttempts ?? DEFAULT_TOOL_RETRY.maximumAttempts,
    initialIntervalMs: tool.retry?.initialIntervalMs ?? DEFAULT_TOOL_RETRY.initialIntervalMs,
    backoffCoefficient: tool.retry?.backoffCoefficient ?? DEFAULT_TOOL_RETRY.backoffCoefficient,
    maximumIntervalMs: tool.retry?.maximumIntervalMs ?? DEFAULT_TOOL_RETRY.maximumIntervalMs,
    loopBreaking: tool.loopBreaking ?? false,
    ...(tool.interaction ? { interaction: tool.interaction } : {}),
    ...(approval ? { approval } : {}),
    ...(tool.localActivity ? { localActivity: true } : {}),
  };
}

/** The run's output schema (`outputSpecOf`); what is wrong with it fails the run as `InvalidInput`. */
function typedOutput(input: AgentLoopInput, agent: AgentDefinition): ResolvedRun['output'] {
  try {
    return outputSpecOf(input, agent);
  } catch (err) {
    throw invalidInput(`Invalid output schema: ${(err as Error).message}`);
  }
}

function invalidInput(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: FailureType.InvalidInput, message, nonRetryable: true });
}
