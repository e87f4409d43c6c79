import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type OpenAI from 'openai';
import { z } from 'zod';
import { FailureType } from '../../contract/errors';
import type { ModelQueues } from '../../contract/flow/model-queues';
import type { GoalTreeActivities } from '../../contract/goal-tree/activities';
import {
  GOAL_COMPONENT_SCHEMAS,
  type Achievement,
  type AnswerInput,
  type AssessInput,
  type Assessment,
  type ComponentOutput,
  type DecomposeInput,
  type Decomposition,
  type GoalSchemaName,
  type ResolvedGoalRun,
  type ResolveGoalInput,
  type ResultsInput,
  type Synthesis,
} from '../../contract/goal-tree/pursue-goal';
import { describeIssues } from '../../contract/issues';
import { priceOf, type ModelPrice } from '../../contract/model/pricing';
import type { ResolveHost } from '../../contract/webhooks/allow';
import { withHeartbeats } from '../heartbeat';
import { chat } from '../model/chat';
import { EndpointQuirks } from '../model/endpoint-quirks';
import { toModelFailure } from '../model/errors';
import type { Registry } from '../registry';
import { refuseRunWebhooks } from '../webhooks/run-webhooks';
import {
  achievedPrompt,
  answerPrompt,
  assessPrompt,
  decomposePrompt,
  synthesizePrompt,
  type PromptMessage,
} from './prompts';
import { createShapeGoalOutput } from './shape-output';

export interface GoalActivityDeps {
  registry: Registry;
  openai: OpenAI;
  defaultModel: string;
  /** Prices that override or extend `DEFAULT_MODEL_PRICES`. */
  modelPrices?: Readonly<Record<string, ModelPrice>>;
  /** What the endpoint refused so far (shared by the worker's model activities). */
  quirks?: EndpointQuirks;
  /** The worker's rate-limited model queues: a tree's model steps go to its agent's, else the default. */
  modelQueues?: ModelQueues;
  /**
   * The worker's webhooks (`WAVELOOP_WEBHOOKS`), told by every tree besides its agent's and its own,
   * and what a tree's own input may name (`WAVELOOP_WEBHOOK_ALLOW`).
   */
  webhooks?: { urls?: readonly string[]; allow?: readonly string[] };
  /** Resolves webhook hosts to addresses (default: node:dns; tests fake it). */
  resolveHost?: ResolveHost;
}

/**
 * The model components of a goal tree: assess, decompose, check achievement,
 * synthesize, and answer an atomic goal directly. Each is one Chat Completions call with a
 * `response_format` JSON Schema made from the component's zod schema (written into the prompt
 * instead when the endpoint refuses it, see `EndpointQuirks`). A reply that does not parse
 * comes back as `{ ok: false }` (the workflow asks once more, showing the error); endpoint errors
 * are mapped like the agent loop's (`toModelFailure`) and retried by Temporal. The activities are
 * named once, in `GOAL_TREE_ACTIVITIES`: the object satisfies `GoalTreeActivities`, so one renamed
 * here and not there fails the build.
 */
export function createGoalActivities({
  registry,
  openai,
  defaultModel,
  modelPrices,
  quirks = new EndpointQuirks(),
  modelQueues,
  webhooks,
  resolveHost,
}: GoalActivityDeps) {
  const capabilities = (names: string[]) =>
    names.length === 0
      ? '  (no tools: answers come from knowledge and evidence only)'
      : names.map((name) => `  - ${name}: ${registry.tools.get(name)?.description ?? ''}`).join('\n');

  async function structured<T>(
    name: GoalSchemaName,
    model: string,
    messages: PromptMessage[],
  ): Promise<ComponentOutput<T>> {
    const schema = GOAL_COMPONENT_SCHEMAS[name] as unknown as z.ZodType<T>;
    const { message, usage } = await withHeartbeats(async () => {
      try {
        const format = { type: 'json_schema', json_schema: { name, schema: jsonSchema(name), strict: false } } as const;
        return await chat(
          openai,
          { model, messages, response_format: format },
          {
            signal: Context.current().cancellationSignal,
            timeoutMs: Context.current().info.startToCloseTimeoutMs,
            quirks,
          },
        );
      } catch (err) {
        throw toModelFailure(err, openai.baseURL);
      }
    });
    const reply = message.content ?? '';
    const parsed = parseReply(reply, schema);
    return parsed.ok
      ? { ok: true, value: parsed.value, usage }
      : { ok: false, reply: reply.slice(0, 4_000), error: parsed.error, usage };
  }

  return {
    /**
     * Settles the model, its price and the tool allowlist of a tree once, at its root; refuses the
     * tree when its input names a webhook it may not (`refuseRunWebhooks`).
     */
    async resolveGoal(input: ResolveGoalInput): Promise<ResolvedGoalRun> {
      await refuseRunWebhooks(input.webhooks ?? [], webhooks?.allow ?? [], resolveHost);
      const agent = registry.agents.get(input.agent ?? 'default');
      if (input.agent && !agent) {
        throw ApplicationFailure.create({
          type: FailureType.InvalidInput,
          message: `Unknown agent "${input.agent}". Known agents: ${[...registry.agents.keys()].join(', ')}.`,
          nonRetryable: true,
        });
      }
      const tools = input.tools ?? agent?.tools ?? [...registry.tools.keys()];
      const unknown = tools.filter((name) => !registry.tools.has(name));
      if (unknown.length > 0) {
        throw ApplicationFailure.create({
          type: FailureType.InvalidInput,
          message: `Unknown tool${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}. Registered tools: ${[...registry.tools.keys()].join(', ')}.`,
          nonRetryable: true,
        });
      }
      const model = input.model ?? (input.agent ? agent?.model : undefined) ?? defaultModel;
      const modelQueue = (agent && modelQueues?.agents[agent.name]) ?? modelQueues?.default;
      const urls = [...new Set([...(input.webhooks ?? []), ...(agent?.webhooks ?? []), ...(webhooks?.urls ?? [])])];
      return {
        model,
        price: priceOf(model, modelPrices) ?? null,
        tools: [...new Set(tools)],
        ...(modelQueue ? { modelQueue: modelQueue.taskQueue } : {}),
        ...(urls.length ? { webhooks: urls } : {}),
      };
    },
    async assessGoal(input: AssessInput): Promise<ComponentOutput<Assessment>> {
      return structured('assessment', input.model, assessPrompt(input, capabilities(input.tools)));
    },
    async decomposeGoal(input: DecomposeInput): Promise<ComponentOutput<Decomposition>> {
      return structured('decomposition', input.model, decomposePrompt(input, capabilities(input.tools)));
    },
    async checkAchieved(input: ResultsInput): Promise<ComponentOutput<Achievement>> {
      return structured('achievement', input.model, achievedPrompt(input, capabilities(input.tools)));
    },
    async synthesizeGoal(input: ResultsInput): Promise<ComponentOutput<Synthesis>> {
      return structured('synthesis', input.model, synthesizePrompt(input, capabilities(input.tools)));
    },
    /** The root's report as JSON of the tree's output schema (`shape-output.ts`). */
    shapeGoalOutput: createShapeGoalOutput({ openai, quirks }),
    /** Executes an atomic goal that needs no tools: the answer comes back in the synthesis shape. */
    async answerGoal(input: AnswerInput): Promise<ComponentOutput<Synthesis>> {
      return structured('synthesis', input.model, answerPrompt(input, capabilities(input.tools)));
    },
  } satisfies GoalTreeActivities;
}

const jsonSchemas = new Map<GoalSchemaName, Record<string, unknown>>();

function jsonSchema(name: GoalSchemaName): Record<string, unknown> {
  let schema = jsonSchemas.get(name);
  if (!schema) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(GOAL_COMPONENT_SCHEMAS[name], { io: 'input' }) as Record<
      string,
      unknown
    >;
    schema = rest;
    jsonSchemas.set(name, schema);
  }
  return schema;
}

/** Parses a structured reply: JSON (a ```json fence around it is tolerated), then the schema. */
export function parseReply<T>(
  reply: string,
  schema: z.ZodType<T>,
): { ok: true; value: T } | { ok: false; error: string } {
  const text = reply.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, '$1');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `not valid JSON (${(err as Error).message})` };
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, error: describeIssues(parsed.error.issues, 'reply') };
}
