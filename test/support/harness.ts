import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { AgentDefinition } from '../../src/agents/define';
import { demoAgents } from '../../src/agents/demo';
import { AGENT_LOOP_WORKFLOW, type AgentLoopResult } from '../../src/common/contract';
import type { AnyTool } from '../../src/tools/define';
import { createDemoTools, openDemoDatabase, type DemoDatabase } from '../../src/tools';
import { createModelClient, createWorker } from '../../src/worker';
import { FakeModel } from './fake-model';
import { queryWithRetry } from '../../src/client/query';
import { statusQuery, transcriptQuery } from '../../src/workflows/messages';
import type { ChatMessage, RunProgress } from '../../src/common/contract';

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

/** The instant the demo tools take as "now" in tests: Sunday 2026-11-22, 10:00 UTC. */
export const TEST_NOW = new Date('2026-11-22T10:00:00Z');

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** The workflow bundle, built once per test file. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath: path.join(__dirname, '..', '..', 'src', 'workflows', 'index.ts'), logger: quietLogger });
  return bundle;
}

const quietLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (message: string) => console.error(message),
};

/**
 * Everything a workflow test needs: a connection to the real dev server started by the global
 * setup, a fake model, and a fresh demo database in a temporary data directory.
 */
export class Harness {
  readonly fake = new FakeModel();
  readonly dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-test-'));
  readonly address = inject('temporalAddress');
  db!: DemoDatabase;
  client!: Client;
  private nativeConnection!: NativeConnection;

  async start(): Promise<this> {
    await this.fake.start();
    this.db = openDemoDatabase(path.join(this.dataDir, 'demo.db'));
    this.client = new Client({ connection: await Connection.connect({ address: this.address }) });
    this.nativeConnection = await NativeConnection.connect({ address: this.address });
    return this;
  }

  async stop(): Promise<void> {
    await this.client?.connection.close();
    await this.nativeConnection?.close();
    await this.fake.stop();
    this.db?.close();
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }

  demoTools(): AnyTool[] {
    return createDemoTools({ db: this.db, now: () => TEST_NOW });
  }

  /** A worker on a task queue of its own, with the demo tools (plus `extraTools`) and the fake model. */
  async worker(options: { taskQueue?: string; extraTools?: AnyTool[]; agents?: AgentDefinition[] } = {}) {
    const taskQueue = options.taskQueue ?? `test-${randomUUID()}`;
    const worker = await createWorker({
      connection: this.nativeConnection,
      client: this.client,
      namespace: 'default',
      taskQueue,
      tools: [...this.demoTools(), ...(options.extraTools ?? [])],
      agents: options.agents ?? demoAgents,
      openai: createModelClient({ baseURL: this.fake.baseURL, apiKey: 'test-key', model: undefined }),
      defaultModel: 'fake-model',
      workflowBundle: await workflowBundle(),
      now: () => TEST_NOW,
    });
    return { worker, taskQueue };
  }

  /**
   * Starts `agentLoop` with the raw input on a fresh worker and waits for its end. `outcome` holds
   * the result or the failure, and `handle` the run, for history and query assertions.
   */
  async run(
    input: unknown,
    options: { extraTools?: AnyTool[]; agents?: AgentDefinition[]; workflowId?: string } = {},
  ): Promise<RunOutcome> {
    const { worker, taskQueue } = await this.worker(options);
    const workflowId = options.workflowId ?? `test-${randomUUID()}`;
    return worker.runUntil(async () => {
      const handle = await this.client.workflow.start(AGENT_LOOP_WORKFLOW, {
        taskQueue,
        workflowId,
        args: [input],
        workflowExecutionTimeout: '2 minutes',
      });
      let outcome: Pick<RunOutcome, 'result' | 'error'>;
      try {
        outcome = { result: (await handle.result()) as AgentLoopResult };
      } catch (error) {
        outcome = { error };
      }
      // Queries need a worker, so they are asked while this one still runs.
      const [progress, transcript] = await Promise.all([
        queryWithRetry(this.client, handle, statusQuery),
        queryWithRetry(this.client, handle, transcriptQuery),
      ]);
      return { handle, ...outcome, progress, transcript };
    });
  }
}
