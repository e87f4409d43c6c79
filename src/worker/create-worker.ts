import { Client } from '@temporalio/client';
import type { RetryPolicy } from '@temporalio/common';
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import OpenAI from 'openai';
import { createActivities, Registry, type WorkerWebhooks } from '../activities';
import { approvalRuleProblems } from '../activities/approval-rule';
import type { AgentDefinition } from '../agents/define';
import type { AuditStore } from '../audit/store';
import type { ScorerDefinition } from '../contract/eval/scorer';
import { modelTranscriptQuery } from '../contract/messages';
import type { ModelPrice } from '../contract/model/pricing';
import { People, type Person } from '../contract/people/people';
import { RUN_SEARCH_ATTRIBUTES } from '../contract/search-attributes';
import { RENAMED_WORKER_OPTIONS, renamedFieldProblems } from '../contract/settings/renamed';
import type { WorkerDefaults } from '../contract/settings/resolve';
import type { BlobStore } from '../payloads/blob-store';
import { waveloopDataConverter } from '../payloads/data-converter';
import { encryptedBlobStore } from '../payloads/encrypted-blob-store';
import type { EncryptionKeys } from '../payloads/encryption-keys';
import type { ModelConfig, WorkerDeployment } from '../settings';
import type { TracingOptions } from '../telemetry/tracing-config';
import { workerTelemetry } from '../telemetry/worker-telemetry';
import { readForkPoint } from '../temporal/fork-point';
import { previousFailure } from '../temporal/pending-activity';
import { queryWithRetry } from '../temporal/query';
import type { AnyTool } from '../tools/define';
import { cachedWorkerBundle } from './bundle-cache';
import { allModelQueues, createModelQueueWorker, modelQueuesOf, withCompanions } from './model-queue-workers';
import { DEFAULT_WORKER_TUNING, type WorkerTuning } from './tuning';

export interface WaveloopWorkerOptions {
  /** Connection used for polling. */
  connection: NativeConnection;
  /** Client used by the model activity to read transcripts; defaults to one over `connection`. */
  client?: Client;
  namespace: string;
  taskQueue: string;
  tools: readonly AnyTool[];
  agents: readonly AgentDefinition[];
  /** Scorers of evals besides the built-in ones (the project config's `scorers`). */
  scorers?: readonly ScorerDefinition[];
  openai: OpenAI;
  /**
   * The worker's settings of its runs, below a run's and its agent's (`loadSettings().defaults` reads
   * them from the environment): `model`, `maxParallelTools`, `modelTimeoutSeconds`, `modelAttempts`,
   * `modelRpm`, `modelTpm`, `webhooks` (docs/contract.md#settings). Every worker of a task queue must
   * be given the same `modelRpm`: the server holds the model queue to the last rate a worker sent.
   */
  defaults?: WorkerDefaults;
  /**
   * A pre-built workflow bundle (tests build it once); default: the bundle of `src/workflows`, built
   * once and kept in the temporary directory for the next worker (`cachedWorkerBundle`). With
   * `encryption`, build it with `failureConverterPath: ENCODED_FAILURES_PATH`, so failures the
   * workflow raises are encrypted too.
   */
  workflowBundle?: WorkerOptions['workflowBundle'];
  now?: () => Date;
  /**
   * Where large payloads and full tool results are stored (the claim check; `blobStoreIn(dataDir)`).
   * Without one, payloads are only compressed, and tool results over the limit are only truncated.
   */
  blobStore?: BlobStore;
  /**
   * Keys that encrypt every payload at rest (`loadSettings().encryption`); without them nothing is
   * encrypted. With a current key, the full tool results kept in `blobStore` are encrypted too.
   * Clients of these runs need the same keys.
   */
  encryption?: EncryptionKeys;
  /**
   * How runs' model calls are retried (default `DEFAULT_MODEL_RETRY`: 8 attempts over about 2
   * minutes, after which the run fails `ModelUnavailable`). Goal components keep the default.
   */
  modelRetry?: RetryPolicy;
  /** Model prices (USD per 1M tokens) overriding `DEFAULT_MODEL_PRICES`, for `maxCostUsd` limits. */
  modelPrices?: Readonly<Record<string, ModelPrice>>;
  /**
   * Stream model replies (default): `waveloop run`/`follow` show the text as it is generated. Set
   * false for endpoints that cannot stream (`WAVELOOP_STREAM=false`); followers then see whole messages.
   */
  stream?: boolean;
  /**
   * Extra worker options (slots, pollers, cache, eager dispatch): passed through to `Worker.create`,
   * over `DEFAULT_WORKER_TUNING`; `throughputTuning(runs)` suits a worker with many runs at once.
   */
  tuning?: WorkerTuning;
  /**
   * OpenTelemetry traces of the runs (docs/observability.md): these options, `false` for none, or by
   * default what the standard variables say (on when `OTEL_EXPORTER_OTLP_ENDPOINT` or
   * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set). A `workflowBundle` must have been built with
   * `telemetryWorkflowModules({ tracing: true })` for the workflows' spans.
   */
  tracing?: TracingOptions | false;
  /**
   * waveloop's metrics (runs, model and tool calls, tokens, cost, approvals) through Temporal's
   * runtime. Default: on when the runtime exports metrics; `WAVELOOP_METRICS_ADDRESS` installs one
   * that serves them for Prometheus, if nothing has installed the runtime yet. A `workflowBundle`
   * must have been built with `telemetryWorkflowModules({ metrics: true })` for the run metrics.
   */
  metrics?: boolean;
  /**
   * The Worker Deployment version this worker's code is (docs/production.md): the worker polls as
   * `buildId` of deployment `name`, and every run it starts stays pinned to that version, its
   * activities and goal-tree children included, until it ends; an agent run that hands over
   * (continue-as-new) moves to the deployment's current version. Set the new version current with
   * `temporal worker deployment set-current-version` for new runs to start on it. Without it the
   * worker is unversioned and takes any run of its task queue.
   */
  deployment?: WorkerDeployment;
  /**
   * Webhooks (docs/webhooks.md; `loadSettings().webhooks`): the secret that signs them and the
   * inbox's base URL for their links (the URLs every run tells are `defaults.webhooks`).
   */
  webhooks?: WorkerWebhooks;
  /**
   * The people directory (docs/security.md): whom the groups of approval rules stand for. A rule
   * declared as an object that names an unknown group or person, or asks a quorum more people than
   * could approve, throws here, and the worker does not start.
   */
  people?: readonly Person[];
  /**
   * Where the runs' audit records go (docs/audit.md): `openAuditStore(settings)` gives the
   * environment's. None: the runs keep no audit trail. The caller closes it after the worker stops.
   */
  audit?: AuditStore;
}

/** Builds a worker for the `agentLoop` and `pursueGoal` workflows and their activities over the given tools and agents. */
export async function createWorker(options: WaveloopWorkerOptions): Promise<Worker> {
  const renamed = [
    ...renamedFieldProblems(options, RENAMED_WORKER_OPTIONS),
    ...renamedFieldProblems(options.webhooks, { urls: 'defaults.webhooks' }).map((problem) => `webhooks: ${problem}`),
  ];
  if (renamed.length) throw new TypeError(`createWorker: ${renamed.join('; ')}.`);
  // Clients given here must use the same converter (`waveloopDataConverter(store, keys)`).
  const dataConverter = waveloopDataConverter(options.blobStore, options.encryption);
  const client =
    options.client ?? new Client({ connection: options.connection, namespace: options.namespace, dataConverter });
  const registry = new Registry(options.tools, options.agents);
  const people = new People([{ source: 'createWorker({ people })', people: options.people ?? [] }]);
  const ruleProblems = approvalRuleProblems(registry, people);
  if (ruleProblems.length) throw new TypeError(`Approval rules: ${ruleProblems.join('; ')}.`);
  const { blobStore, encryption } = options;
  const searchAttributes = once(() => hasSearchAttributes(client, options.namespace));
  const modelQueues = modelQueuesOf(options.taskQueue, options.defaults?.modelRpm, options.agents);
  const activities = createActivities({
    registry,
    people,
    audit: options.audit,
    blobStore: blobStore && encryption?.currentId ? encryptedBlobStore(blobStore, encryption) : blobStore,
    openai: options.openai,
    defaults: options.defaults,
    now: options.now,
    modelPrices: options.modelPrices,
    stream: options.stream,
    modelRetry: options.modelRetry,
    modelQueues,
    webhooks: options.webhooks,
    searchAttributes,
    scorers: options.scorers,
    previousFailure: async (workflowId, runId, activityId) =>
      previousFailure((await client.workflow.getHandle(workflowId, runId).describe()).raw, activityId),
    forkPoint: (fork) => readForkPoint(client, fork),
    readTranscript: async (workflowId, runId, count) => {
      const messages = await queryWithRetry(client, client.workflow.getHandle(workflowId, runId), modelTranscriptQuery);
      if (messages.length < count) {
        throw new Error(
          `The transcript of ${workflowId} has ${messages.length} messages; the model call needs ${count}.`,
        );
      }
      return messages.slice(0, count);
    },
  });
  const { namespace, taskQueue, modelPrices } = options;
  const telemetry = await workerTelemetry({
    tracing: options.tracing,
    metrics: options.metrics,
    modelPrices,
    client,
    namespace,
    taskQueue,
    searchAttributes,
  });
  const workflowBundle = options.workflowBundle ?? {
    codePath: await cachedWorkerBundle(dataConverter, telemetry.workflowModules),
  };
  const workerDeploymentOptions: WorkerOptions['workerDeploymentOptions'] = options.deployment && {
    version: { deploymentName: options.deployment.name, buildId: options.deployment.buildId },
    useWorkerVersioning: true,
    defaultVersioningBehavior: 'PINNED',
  };
  const tuning = { ...DEFAULT_WORKER_TUNING, ...options.tuning };
  const worker = await Worker.create({
    connection: options.connection,
    dataConverter,
    namespace,
    taskQueue,
    activities,
    workflowBundle,
    interceptors: { activity: telemetry.interceptors.activity },
    sinks: telemetry.sinks,
    ...(workerDeploymentOptions && { workerDeploymentOptions }),
    ...tuning,
  });
  // Every activity that calls the model: a run's calls and summaries, a goal tree's steps.
  const { callModel, summarizeTranscript, assessGoal, decomposeGoal, checkAchieved, synthesizeGoal, answerGoal } =
    activities;
  const modelActivities = {
    callModel,
    summarizeTranscript,
    assessGoal,
    decomposeGoal,
    checkAchieved,
    synthesizeGoal,
    answerGoal,
    shapeGoalOutput: activities.shapeGoalOutput,
  };
  const modelWorkers = await Promise.all(
    allModelQueues(modelQueues).map((queue) =>
      createModelQueueWorker(queue, {
        connection: options.connection,
        namespace,
        dataConverter,
        interceptors: { activity: telemetry.interceptors.activity },
        workerDeploymentOptions,
        activities: modelActivities,
        tuning,
      }),
    ),
  );
  return withCompanions(telemetry.attach(worker), modelWorkers);
}

/** Whether `namespace` has the search attributes runs keep current (false when it cannot tell). */
async function hasSearchAttributes(client: Client, namespace: string): Promise<boolean> {
  try {
    const { customAttributes } = await client.connection.operatorService.listSearchAttributes({ namespace });
    return RUN_SEARCH_ATTRIBUTES.every((key) => customAttributes?.[key.name] !== undefined);
  } catch {
    return false;
  }
}

/** Calls `fn` once and shares its promise (a failed call is tried again next time). */
function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => {
    result ??= fn().catch((err) => {
      result = undefined;
      throw err;
    });
    return result;
  };
}

/** The `openai` client for an OpenAI-compatible endpoint; retries are Temporal's, so the client makes none. */
export function createModelClient(model: Pick<ModelConfig, 'baseURL' | 'apiKey'>): OpenAI {
  return new OpenAI({
    apiKey: model.apiKey ?? 'not-needed',
    baseURL: model.baseURL,
    maxRetries: 0,
    // Each call gives up with its activity attempt's own timeout (a run's `modelTimeoutSeconds`).
    timeout: 24 * 3_600_000,
  });
}
