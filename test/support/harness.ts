import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { inject } from 'vitest';
import { defaultAgent } from '../../src/agents/default';
import type { AgentDefinition } from '../../src/agents/define';
import { AGENT_LOOP_WORKFLOW, type AgentLoopResult } from '../../src/contract/agent-loop';
import type { ChatMessage, RunProgress } from '../../src/contract/agent-loop';
import { PURSUE_GOAL_WORKFLOW } from '../../src/contract/goal-tree/defaults';
import type { GoalResult } from '../../src/contract/goal-tree/pursue-goal';
import { statusQuery, transcriptQuery } from '../../src/contract/messages';
import { createDemoTools, openDemoDatabase, type DemoDatabase } from '../../src/demo';
import { demoAgents } from '../../src/demo/agents';
import { blobStoreIn } from '../../src/payloads/blob-store';
import { waveloopDataConverter } from '../../src/payloads/data-converter';
import type { EncryptionKeys } from '../../src/payloads/encryption-keys';
import { queryWithRetry } from '../../src/temporal/query';
import { builtinTools } from '../../src/tools';
import type { AnyTool } from '../../src/tools/define';
import { createModelClient, createWorker, type WaveloopWorkerOptions } from '../../src/worker';
import { FakeModel } from './fake-model';
import { eventually } from './wait';
import { buildWorkflowBundle } from './workflow-bundle';

export interface GoalOutcome {
  handle: WorkflowHandle;
  result?: GoalResult;
  error?: unknown;
}

export interface RunOutcome {
  handle: WorkflowHandle;
  result?: AgentLoopResult;
  error?: unknown;
  /** The `status` and `transcript` queries, answered after the run ended. */
  progress: RunProgress;
  transcript: ChatMessage[];
}

// Activity failures are part of what the tests exercise; keep the worker's log to errors.
Runtime.install({ logger: new DefaultLogger('ERROR') });

/** Traces and metrics of a test's workers, and the bundle built for them (test/telemetry); none by default. */
export type TestTelemetry = Pick<WaveloopWorkerOptions, 'tracing' | 'metrics' | 'workflowBundle'>;

/** The instant the demo tools take as "now" in tests: Sunday 2026-11-22, 10:00 UTC. */
export const TEST_NOW = new Date('2026-11-22T10:00:00Z');

/** A built workflow bundle, as `Worker.create` and `Worker.runReplayHistories` take it. */
export interface WorkflowBundle {
  code: string;
}

const bundles = new Map<string, Promise<WorkflowBundle>>();

/**
 * The workflow bundle: the one the global setup built for the whole run (test/support/global-setup.ts),
 * or, with the failure converter of encrypted runs (`failureConverterPath`, as `createWorker` bundles it
 * when given a key) or without a global setup (the chaos tests), built here once per test file.
 */
export function workflowBundle(failureConverterPath?: string): Promise<WorkflowBundle> {
  const key = failureConverterPath ?? '';
  let bundle = bundles.get(key);
  if (!bundle) {
    const prebuilt = failureConverterPath ? undefined : inject('workflowBundlePath');
    bundle = prebuilt
      ? fs.promises.readFile(prebuilt, 'utf8').then((code) => ({ code }))
      : buildWorkflowBundle(failureConverterPath);
    bundles.set(key, bundle);
  }
  return bundle;
}

/**
 * Everything a workflow test needs: a connection to the real dev server started by the global
 * setup (or to the server at `address`), a fake model, and a fresh demo database in a temporary
 * data directory.
 */
export class Harness {
  /**
   * `encryption`: the keys of workers and client (`WAVELOOP_ENCRYPTION_KEY`); none by default.
   * `address`: the Temporal server, for tests without the global setup (test/cluster).
   */
  constructor(readonly options: { encryption?: EncryptionKeys; address?: string } = {}) {
    this.address = options.address ?? inject('temporalAddress');
  }

  readonly fake = new FakeModel();
  readonly dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-test-'));
  readonly address: string;
  /** The claim-check store of workers and client (`<dataDir>/payloads`), as in the embedded setup. */
  readonly blobStore = blobStoreIn(this.dataDir);
  db!: DemoDatabase;
  client!: Client;
  private nativeConnection!: NativeConnection;
  /** The worker of runs that need no worker options of their own, running until `stop()`. */
  private shared?: Promise<{ worker: Worker; taskQueue: string; running: Promise<void> }>;

  async start(): Promise<this> {
    await this.fake.start();
    this.db = openDemoDatabase(path.join(this.dataDir, 'demo.db'));
    this.client = new Client({
      connection: await Connection.connect({ address: this.address }),
      dataConverter: waveloopDataConverter(this.blobStore, this.options.encryption),
    });
    this.nativeConnection = await NativeConnection.connect({ address: this.address });
    return this;
  }

  async stop(): Promise<void> {
    if (this.shared) {
      const { worker, running } = await this.shared;
      worker.shutdown();
      await running;
    }
    await this.client?.connection.close();
    await this.nativeConnection?.close();
    await this.fake.stop();
    this.db?.close();
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }

  demoTools(): AnyTool[] {
    return [...createDemoTools({ db: this.db, now: () => TEST_NOW }), ...builtinTools()];
  }

  /** A worker on a task queue of its own, with the demo tools (plus `extraTools`) and the fake model. */
  async worker(
    options: {
      taskQueue?: string;
      extraTools?: AnyTool[];
      agents?: AgentDefinition[];
      modelTimeoutMs?: number;
      /** The model endpoint (default: the fake model's). */
      modelBaseURL?: string;
      /** How model calls are retried (default: as a worker retries them). */
      modelRetry?: WaveloopWorkerOptions['modelRetry'];
      stream?: boolean;
      tuning?: WaveloopWorkerOptions['tuning'];
      telemetry?: TestTelemetry;
      /** A Worker Deployment version (default: an unversioned worker). */
      deployment?: WaveloopWorkerOptions['deployment'];
      /** Model calls a minute held by the server (`WAVELOOP_MODEL_RPM`; default none). */
      modelRpm?: number;
      /** Tokens a minute this worker's model calls may spend (`WAVELOOP_MODEL_TPM`; default none). */
      modelTpm?: number;
      /** Seconds a call may go unheard of before it is tried again (`WAVELOOP_HEARTBEAT_SECONDS`; default 10). */
      heartbeatSeconds?: number;
      /** The people directory that approval rules' groups stand for (default: nobody). */
      people?: WaveloopWorkerOptions['people'];
      /** Where the runs' audit records go (default: none); the test closes it after the worker stops. */
      audit?: WaveloopWorkerOptions['audit'];
      /** The worker's connection (default: the harness's); a second worker of one task queue needs its own. */
      connection?: NativeConnection;
    } = {},
  ) {
    const baseURL = options.modelBaseURL ?? this.fake.baseURL;
    const taskQueue = options.taskQueue ?? `test-${randomUUID()}`;
    const worker = await createWorker({
      connection: options.connection ?? this.nativeConnection,
      client: this.client,
      namespace: 'default',
      taskQueue,
      tools: [...this.demoTools(), ...(options.extraTools ?? [])],
      agents: options.agents ?? [defaultAgent, ...demoAgents],
      openai: options.modelTimeoutMs
        ? new OpenAI({ baseURL, apiKey: 'test-key', maxRetries: 0, timeout: options.modelTimeoutMs })
        : createModelClient({ baseURL, apiKey: 'test-key' }),
      defaults: {
        model: 'fake-model',
        ...(options.modelRpm === undefined ? {} : { modelRpm: options.modelRpm }),
        ...(options.modelTpm === undefined ? {} : { modelTpm: options.modelTpm }),
        ...(options.heartbeatSeconds === undefined ? {} : { heartbeatSeconds: options.heartbeatSeconds }),
      },
      stream: options.stream,
      modelRetry: options.modelRetry,
      workflowBundle:
        options.telemetry?.workflowBundle ??
        (await workflowBundle(waveloopDataConverter(undefined, this.options.encryption).failureConverterPath)),
      blobStore: this.blobStore,
      encryption: this.options.encryption,
      now: () => TEST_NOW,
      tuning: options.tuning,
      tracing: options.telemetry?.tracing ?? false,
      metrics: options.telemetry?.metrics,
      deployment: options.deployment,
      people: options.people,
      audit: options.audit,
    });
    return { worker, taskQueue };
  }

  /**
   * Starts `agentLoop` with the raw input on a fresh worker and waits for its end. `outcome` holds
   * the result or the failure, and `handle` the run, for history and query assertions.
   */
  async run(
    input: unknown,
    options: {
      extraTools?: AnyTool[];
      agents?: AgentDefinition[];
      workflowId?: string;
      timeout?: string;
      /** The worker's model client gives up after this long (default 4 min), to test hangs quickly. */
      modelTimeoutMs?: number;
      /** The model endpoint (default: the fake model's). */
      modelBaseURL?: string;
      /** How model calls are retried (default: as a worker retries them). */
      modelRetry?: WaveloopWorkerOptions['modelRetry'];
      /** Whether the worker streams model replies (default true). */
      stream?: boolean;
      /** The worker's `heartbeatSeconds` (default 10). */
      heartbeatSeconds?: number;
      /** Runs beside the workflow while it runs (answer questions, cancel it, …). */
      during?: (handle: WorkflowHandle) => Promise<void>;
      telemetry?: TestTelemetry;
    } = {},
  ): Promise<RunOutcome> {
    return this.startAndWait(
      AGENT_LOOP_WORKFLOW,
      input,
      { ...options, workflowId: options.workflowId ?? `test-${randomUUID()}` },
      async (handle, outcome) => {
        await options.during?.(handle);
        const ended = (await outcome) as Pick<RunOutcome, 'result' | 'error'>;
        // Queries need a worker, so they are asked while this one still runs.
        const [progress, transcript] = await Promise.all([
          queryWithRetry(this.client, handle, statusQuery),
          queryWithRetry(this.client, handle, transcriptQuery),
        ]);
        return { handle, ...ended, progress, transcript };
      },
    );
  }

  /**
   * Starts a goal tree (`pursueGoal`) with the raw input on a fresh worker and waits for its end.
   * `workflowId` is the root's id; its sub-goals are `<id>/1`, `<id>/1.2`, …
   */
  async pursue(
    input: unknown,
    options: { workflowId?: string; extraTools?: AnyTool[]; telemetry?: TestTelemetry } = {},
  ): Promise<GoalOutcome> {
    return this.startAndWait(
      PURSUE_GOAL_WORKFLOW,
      input,
      { ...options, workflowId: options.workflowId ?? `goal-${randomUUID()}` },
      async (handle, outcome) => ({
        handle,
        ...((await outcome) as { result?: GoalResult; error?: unknown }),
      }),
    );
  }

  /**
   * Starts `workflowType` with the raw input on a fresh worker and hands `finish` the run and its
   * outcome (the result, or the failure), while the worker still runs.
   */
  private async startAndWait<T>(
    workflowType: string,
    input: unknown,
    options: Parameters<Harness['worker']>[0] & { workflowId: string; timeout?: string; during?: unknown },
    finish: (handle: WorkflowHandle, outcome: Promise<{ result?: unknown; error?: unknown }>) => Promise<T>,
  ): Promise<T> {
    const start = async (taskQueue: string) => {
      const handle = await this.client.workflow.start(workflowType, {
        taskQueue,
        workflowId: options.workflowId,
        args: [input],
        workflowExecutionTimeout: (options.timeout ?? '2 minutes') as '2 minutes',
      });
      const outcome = handle.result().then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
      return finish(handle, outcome);
    };
    // Creating a worker costs about a quarter of a second of CPU (its workflow thread loads the
    // bundle): runs with the default worker share one.
    const { workflowId: _workflowId, timeout: _timeout, during: _during, ...workerOptions } = options;
    if (Object.values(workerOptions).every((value) => value === undefined)) {
      const { taskQueue } = await this.sharedWorker();
      return start(taskQueue);
    }
    const { worker, taskQueue } = await this.worker(options);
    return worker.runUntil(() => start(taskQueue));
  }

  private sharedWorker(): Promise<{ worker: Worker; taskQueue: string; running: Promise<void> }> {
    this.shared ??= this.worker().then(({ worker, taskQueue }) => ({ worker, taskQueue, running: worker.run() }));
    return this.shared;
  }
}

/** Polls the run's `status` query until `predicate` holds (for tests that act while a run waits). */
export async function waitForProgress(
  client: Client,
  handle: WorkflowHandle,
  predicate: (progress: RunProgress) => boolean,
): Promise<RunProgress> {
  return eventually(() => queryWithRetry(client, handle, statusQuery), predicate, {
    attempts: 300,
    problem: 'The run never reached the expected state.',
  });
}
