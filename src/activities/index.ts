import type { RetryPolicy } from '@temporalio/common';
import type OpenAI from 'openai';
import type { ChatMessage } from '../contract/agent-loop';
import type { ScorerDefinition } from '../contract/eval/scorer';
import type { ModelQueues } from '../contract/flow/model-queues';
import type { ModelPrice } from '../contract/model/pricing';
import type { BlobStore } from '../payloads/blob-store';
import { createScoreEvalCase } from './eval/score-case';
import { createGoalActivities } from './goal-tree/components';
import { createCallModel } from './model/call-model';
import { EndpointQuirks } from './model/endpoint-quirks';
import { RateLimitGate } from './model/rate-limit-gate';
import { checkOutput } from './output/check-output';
import type { Registry } from './registry';
import { createResolveFork, type ResolveForkDeps } from './resolve-fork';
import { createResolveRun } from './resolve-run';
import { createSummarize } from './summarize';
import { createCheckToolArguments } from './tool-arguments';
import { ToolResultCache } from './tool-result-cache';
import { createRunTool } from './tools';
import { createPostWebhook } from './webhooks/post';

/** The worker's webhooks: its URLs, the signing secret, the inbox's base URL (`loadSettings().webhooks`). */
export interface WorkerWebhooks {
  urls?: readonly string[];
  secret?: string;
  inboxUrl?: string;
}

export interface ActivityDeps extends ResolveForkDeps {
  /** Keeps full tool results that are too long for the transcript (see `runTool`). */
  blobStore?: BlobStore;
  registry: Registry;
  openai: OpenAI;
  defaultModel: string;
  readTranscript(workflowId: string, runId: string, count: number): Promise<ChatMessage[]>;
  now?: () => Date;
  /** Whether the namespace has waveloop's search attributes. */
  searchAttributes?: () => Promise<boolean>;
  /** Model prices (USD per 1M tokens) that override `DEFAULT_MODEL_PRICES` for cost limits. */
  modelPrices?: Readonly<Record<string, ModelPrice>>;
  /** Stream model replies and publish their text in heartbeats (default true). */
  stream?: boolean;
  /** How runs' model calls are retried (default `DEFAULT_MODEL_RETRY`). */
  modelRetry?: RetryPolicy;
  /** How long one attempt of a run's model call may take (default `DEFAULT_MODEL_TIMEOUT_MS`). */
  modelTimeoutMs?: number;
  /** How many tool calls of a wave run at once when neither the run nor its agent says (default 16). */
  maxParallelTools?: number;
  /** The most tokens the worker's model calls may spend in any minute (`WAVELOOP_MODEL_TPM`; none by default). */
  modelTpm?: number;
  /**
   * The task queues of rate-limited model calls (`WAVELOOP_MODEL_RPM`, an agent's `modelRpm`):
   * `default` for every run, `agents` for an agent's own; a run's model calls go to its queue.
   */
  modelQueues?: ModelQueues;
  /**
   * Webhooks (docs/webhooks.md): the worker's URLs (`WAVELOOP_WEBHOOK_URL`), which every run tells
   * besides its agent's and its own, the secret that signs them and the inbox's base URL for links.
   */
  webhooks?: WorkerWebhooks;
  /** Why the attempt before this one of an activity failed, for the log (`describe()` of the run). */
  previousFailure?(workflowId: string, runId: string, activityId: string): Promise<string | undefined>;
  /** The project's own scorers, for evals (`scoreEvalCase`). */
  scorers?: readonly ScorerDefinition[];
}

/**
 * All activities of waveloop, with their dependencies injected (the worker builds them once;
 * tests build them with fakes). Workflows import only the type of this function's result.
 */
export function createActivities(deps: ActivityDeps) {
  // What `runTool` returns, for the run's next `callModel` on this worker (`ModelCallInput.delta`).
  const toolResults = new ToolResultCache();
  // What the model endpoint refused (`parallel_tool_calls`, `response_format` json_schema, …), for all model calls.
  const quirks = new EndpointQuirks();
  // What the endpoint's rate-limit headers and 429s said, for every model call of this worker.
  const gate = new RateLimitGate({ tokensPerMinute: deps.modelTpm });
  return {
    resolveRun: createResolveRun({
      registry: deps.registry,
      defaultModel: deps.defaultModel,
      now: deps.now ?? (() => new Date()),
      modelPrices: deps.modelPrices,
      searchAttributes: deps.searchAttributes,
      modelRetry: deps.modelRetry,
      modelTimeoutMs: deps.modelTimeoutMs,
      maxParallelTools: deps.maxParallelTools,
      modelQueues: deps.modelQueues,
      webhooks: deps.webhooks?.urls,
    }),
    resolveFork: createResolveFork(deps),
    callModel: createCallModel({ ...deps, toolResults, quirks, gate }),
    runTool: createRunTool({ ...deps, toolResults }),
    checkToolArguments: createCheckToolArguments(deps),
    checkOutput,
    postWebhook: createPostWebhook({ secret: deps.webhooks?.secret, inboxUrl: deps.webhooks?.inboxUrl }),
    summarizeTranscript: createSummarize({ ...deps, quirks }),
    ...createGoalActivities({ ...deps, quirks }),
    scoreEvalCase: createScoreEvalCase({ ...deps, quirks }),
  };
}

export { Registry } from './registry';
