import type { RetryPolicy } from '@temporalio/common';
import type { AgentDefinition } from '../agents/define';
import type { ResolvedRun, ResolveRunInput, ToolApproval, ToolInfo } from '../contract/activity-io';
import { DEFAULT_MODEL_RETRY, DEFAULT_TOOL_RETRY, DEFAULT_TOOL_TIMEOUT_SECONDS } from '../contract/activity-options';
import type { AgentChain } from '../contract/agent-chain';
import { parseAgentLoopInput, type AgentLoopInput } from '../contract/agent-loop';
import { DEFAULT_EFFECT } from '../contract/effects/effect';
import type { ModelQueues } from '../contract/flow/model-queues';
import { temporalPriority } from '../contract/flow/priority';
import { priceOf, type ModelPrice } from '../contract/model/pricing';
import { outputInstructions } from '../contract/output/output';
import { jsonPlannerInstructions } from '../contract/plan';
import {
  resolveRunSettings,
  resolveToolSettings,
  type RunSettings,
  type WorkerDefaults,
} from '../contract/settings/resolve';
import type { ResolveHost } from '../contract/webhooks/allow';
import type { AnyTool } from '../tools/define';
import { approvalRuleOf } from './approval-rule';
import { contextWindowOf } from './context-windows';
import { invalidInput } from './invalid-input';
import { toolParametersSchema } from './model/tool-schema';
import { agentToolsOf, handoffToolsOf } from './offered-agents';
import { outputSpecOf } from './output/output-spec';
import type { Registry } from './registry';
import { resolveHost } from './webhooks/resolve-host';
import { refuseRunWebhooks } from './webhooks/run-webhooks';

export interface ResolveRunDeps {
  registry: Registry;
  now: () => Date;
  /** The worker's settings (`createWorker({ defaults })`, the environment): below the run's and its agent's. */
  defaults?: WorkerDefaults;
  /** Prices overriding the default table, for `maxCostUsd`. */
  modelPrices?: Readonly<Record<string, ModelPrice>>;
  /** Whether the namespace has waveloop's search attributes (checked by the worker at start). */
  searchAttributes?: () => Promise<boolean>;
  /** How runs' model calls are retried (default `DEFAULT_MODEL_RETRY`); a run or agent may set the attempts. */
  modelRetry?: RetryPolicy;
  /** The worker's rate-limited model queues (`WAVELOOP_MODEL_RPM`, agents' `modelRpm`). */
  modelQueues?: ModelQueues;
  /** The worker's audit store, when it keeps one: its runs then write their records. */
  audit?: unknown;
  /** `WAVELOOP_WEBHOOK_ALLOW` (`webhooks.allow`): the webhooks a run's own input may name; none when unset. */
  webhooks?: { allow?: readonly string[] };
  /** Resolves webhook hosts to addresses (default: node:dns; tests fake it). */
  resolveHost?: ResolveHost;
}

/**
 * Merges the run's input with its agent profile and the worker's defaults: every setting by
 * `resolveRunSettings` (the input's, else the agent's, else the worker's, else the default), then
 * the system prompt (with today's date, which the date tools need the model to know), the tools and
 * their approval, the model's price and queue. An unknown agent or tool fails with a non-retryable
 * `InvalidInput`.
 */
export function createResolveRun({
  registry,
  now,
  defaults,
  modelPrices,
  searchAttributes,
  modelRetry,
  modelQueues,
  audit,
  webhooks,
  resolveHost: resolve = resolveHost,
}: ResolveRunDeps) {
  return async function resolveRun(rawInput: ResolveRunInput): Promise<ResolvedRun> {
    // The workflow hands over the input as sent: validation needs zod, which workflow code avoids
    // (src/workflows/lazy.ts).
    const input = parseAgentLoopInput(rawInput);
    await refuseRunWebhooks(input.webhooks ?? [], webhooks?.allow ?? [], resolve);
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
    // A worker's retry policy with attempts gives its default attempts (tests' quick retries).
    const attempts = modelRetry?.maximumAttempts;
    const worker = { ...(attempts === undefined ? {} : { modelAttempts: attempts }), ...defaults };
    const settings = resolveRunSettings({ run: input, agent, worker });
    const notAllowed = (settings.toolsToApprove ?? []).filter((name) => !toolNames.includes(name));
    if (notAllowed.length > 0) {
      throw invalidInput(
        `toolsToApprove names tools the run does not have: ${notAllowed.map((n) => `"${n}"`).join(', ')}.`,
      );
    }
    const modelQueue = modelQueues?.agents[agent.name] ?? modelQueues?.default;
    if (modelQueue && settings.localModelCalls) {
      throw invalidInput(
        `localModelCalls cannot run under a model rate limit (${modelQueue.requestsPerMinute} calls a minute on task queue ` +
          `"${modelQueue.taskQueue}"): a local model call never goes through a task queue, so the server could not hold it ` +
          'to the limit. Leave localModelCalls out, or run it on workers without WAVELOOP_MODEL_RPM.',
      );
    }
    if (settings.maxContextTokens === undefined) {
      const known = contextWindowOf(settings.model);
      if (known !== undefined) settings.maxContextTokens = known;
    }
    const uniqueNames = [...new Set(toolNames)];
    const agentTools = agentToolsOf(agent, settings, { registry, tools: uniqueNames });
    const handoffs = handoffToolsOf(agent, settings, {
      registry,
      tools: [...uniqueNames, ...agentTools.map((t) => t.info.name)],
    });
    if (input.chain) withinParentBudget(settings, input.chain);
    const instructions =
      settings.planner === 'json'
        ? `\n\n${jsonPlannerInstructions([
            ...uniqueNames.map((name) => ({
              ...registry.tools.get(name)!,
              parameters: toolParametersSchema(registry.tools.get(name)!),
            })),
            ...[...agentTools, ...handoffs].map((offered) => offered.schema),
          ])}`
        : '';
    const output = typedOutput(input, agent, settings);
    const today = now().toISOString().slice(0, 10);
    const weekday = now().toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' });
    const priority = temporalPriority(settings);
    return {
      agent: agent.name,
      system:
        `${input.system ?? agent.system}${instructions}` +
        (output ? `\n\n${outputInstructions(output.schema, settings.planner)}` : '') +
        `\n\nToday is ${today} (${weekday}).`,
      tools: [
        ...uniqueNames.map((name) =>
          toolInfo(registry.tools.get(name)!, approvalOf(name, { input, settings, agent, registry })),
        ),
        ...[...agentTools, ...handoffs].map((offered) => offered.info),
      ],
      settings,
      price: priceOf(settings.model, modelPrices) ?? null,
      ...(modelQueue ? { modelQueue } : {}),
      ...(priority ? { priority } : {}),
      modelRetry: { ...(modelRetry ?? DEFAULT_MODEL_RETRY), maximumAttempts: settings.modelAttempts },
      searchAttributes: (await searchAttributes?.()) ?? false,
      ...(audit ? { audit: true } : {}),
      ...(output ? { output } : {}),
      ...(agentTools.length || input.chain
        ? {
            tree: {
              goal: input.goal,
              ...(input.chain ? { chain: input.chain } : {}),
              ...(input.webhooks?.length ? { webhooks: input.webhooks } : {}),
            },
          }
        : {}),
    };
  };
}

/** A run an agent call started spends at most what its parent left it: its token and cost budgets are lowered to that. */
function withinParentBudget(settings: RunSettings, chain: AgentChain): void {
  const { tokens, costUsd } = chain.budget ?? {};
  if (tokens !== undefined) settings.maxTokens = Math.min(settings.maxTokens ?? tokens, tokens);
  if (costUsd !== undefined) settings.maxCostUsd = Math.min(settings.maxCostUsd ?? costUsd, costUsd);
}

interface Approvals {
  input: AgentLoopInput;
  settings: RunSettings;
  agent: AgentDefinition;
  registry: Registry;
}

/**
 * When calls of `name` wait for approval in this run: always when the run's (or its agent's)
 * `toolsToApprove` names it, or its `effectsToApprove` names the tool's effect; else as the agent's
 * rule for it says, else as the tool's own. A deadline and what it decides come from the run, else
 * the agent, else the tool.
 */
function approvalOf(name: string, { input, settings, agent, registry }: Approvals): ToolApproval | undefined {
  const tool = registry.tools.get(name)!;
  const always =
    settings.toolsToApprove?.includes(name) || settings.effectsToApprove?.includes(tool.effect ?? DEFAULT_EFFECT);
  const rule = always ? true : approvalRuleOf(registry, agent.name, name);
  if (!rule) return undefined;
  const { approvalTimeoutSeconds, onApprovalTimeout } = resolveToolSettings({ run: input, agent, tool });
  return {
    when: typeof rule === 'function' ? 'rule' : 'always',
    ...(approvalTimeoutSeconds === undefined ? {} : { timeoutSeconds: approvalTimeoutSeconds }),
    onTimeout: onApprovalTimeout,
  };
}

function toolInfo(tool: AnyTool, approval: ToolApproval | undefined): ToolInfo {
  return {
    name: tool.name,
    timeoutSeconds: tool.timeoutSeconds ?? DEFAULT_TOOL_TIMEOUT_SECONDS,
    retry: { ...DEFAULT_TOOL_RETRY, ...tool.retry },
    loopBreaking: tool.loopBreaking ?? false,
    ...(tool.interaction ? { interaction: tool.interaction } : {}),
    ...(approval ? { approval } : {}),
    ...(runsLocally(tool) ? { localActivity: true } : {}),
    ...(tool.sensitive?.length ? { sensitive: [...tool.sensitive] } : {}),
    effect: tool.effect ?? DEFAULT_EFFECT,
    ...(tool.reconcile ? { reconcile: true } : {}),
    ...(tool.undo ? { undo: true } : {}),
  };
}

/** Whether calls of `tool` run as local activities: as it says, else when it only reads. */
function runsLocally(tool: AnyTool): boolean {
  return tool.localActivity ?? (tool.effect ?? DEFAULT_EFFECT) === 'read';
}

/** The run's output schema (`outputSpecOf`); what is wrong with it fails the run as `InvalidInput`. */
function typedOutput(input: AgentLoopInput, agent: AgentDefinition, settings: RunSettings): ResolvedRun['output'] {
  try {
    return outputSpecOf(input, agent, settings);
  } catch (err) {
    throw invalidInput(`Invalid output schema: ${(err as Error).message}`);
  }
}
