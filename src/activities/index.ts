import type { RetryPolicy } from '@temporalio/common';
import type OpenAI from 'openai';
import type { AuditStore } from '../audit/store';
import type { ChatMessage } from '../contract/agent-loop';
import type { ScorerDefinition } from '../contract/eval/scorer';
import type { ModelQueues } from '../contract/flow/model-queues';
import type { ModelPrice } from '../contract/model/pricing';
import type { People } from '../contract/people/people';
import { SETTINGS } from '../contract/settings/declarations';
import type { WorkerDefaults } from '../contract/settings/resolve';
import type { BlobStore } from '../payloads/blob-store';
import { createRecordAudit } from './audit';
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
import { createPrepareApproval, createRunTool } from './tools';
import { createUndoCall, createUndoSetup } from './undo';
import { createPostWebhook } from './webhooks/post';

/** How the worker's webhooks are signed and where they link (`loadSettings().webhooks`; the URLs are `defaults.webhooks`). */
export interface WorkerWebhooks {
  secret?: string;
  inboxUrl?: string;
  /** `WAVELOOP_WEBHOOK_ALLOW`: what a run's own input may name (checked by `resolveRun` and `postWebhook`). */
  allow?: readonly string[];
  /**
   * `WAVELOOP_AUDIT_WEBHOOKS`: where a copy of every audit record goes once it is written (a SIEM),
   * signed like every webhook (docs/audit.md#copies-to-a-siem).
   */
  audit?: readonly string[];
}

export interface ActivityDeps extends ResolveForkDeps {
  /** Keeps full tool results that are too long for the transcript (see `runTool`). */
  blobStore?: BlobStore;
  registry: Registry;
  /** Where the runs' audit records go (`recordAudit`); none: the runs keep no audit trail. */
  audit?: AuditStore;
  /** The people directory: whom an approval rule's groups stand for (`createWorker({ people })`). */
  people?: People;
  openai: OpenAI;
  /** The worker's settings of its runs (`createWorker({ defaults })`): below a run's and its agent's. */
  defaults?: WorkerDefaults;
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
  /**
   * The task queues of rate-limited model calls (`WAVELOOP_MODEL_RPM`, an agent's `modelRpm`):
   * `default` for every run, `agents` for an agent's own; a run's model calls go to its queue.
   */
  modelQueues?: ModelQueues;
  /** Webhooks (docs/webhooks.md): the secret that signs them and the inbox's base URL for links. */
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
  const gate = new RateLimitGate({ tokensPerMinute: deps.defaults?.modelTpm });
  const defaultModel = deps.defaults?.model ?? SETTINGS.model.default;
  const webhooks = { ...deps.webhooks, urls: deps.defaults?.webhooks };
  return {
    resolveRun: createResolveRun({ ...deps, now: deps.now ?? (() => new Date()) }),
    resolveFork: createResolveFork(deps),
    callModel: createCallModel({ ...deps, toolResults, quirks, gate }),
    runTool: createRunTool({ ...deps, toolResults }),
    prepareApproval: createPrepareApproval(deps),
    recordAudit: createRecordAudit({ audit: deps.audit, webhooks: deps.webhooks?.audit }),
    checkToolArguments: createCheckToolArguments(deps),
    checkOutput,
    postWebhook: createPostWebhook({
      secret: deps.webhooks?.secret,
      inboxUrl: deps.webhooks?.inboxUrl,
      allow: deps.webhooks?.allow ?? [],
    }),
    summarizeTranscript: createSummarize({ ...deps, quirks }),
    ...createGoalActivities({ ...deps, defaultModel, webhooks, quirks }),
    scoreEvalCase: createScoreEvalCase({ ...deps, defaultModel, quirks }),
    undoCall: createUndoCall(deps),
    undoSetup: createUndoSetup(deps),
  };
}

export { Registry } from './registry';
