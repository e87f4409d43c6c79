import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import type { History } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { defineAgent, type AgentDefinition } from '../../src/agents/define';
import { START_DEV_SEARCH_ATTRIBUTE_FLAGS } from '../../src/contract/search-attributes';
import { blobStoreIn } from '../../src/payloads/blob-store';
import { waveloopDataConverter } from '../../src/payloads/data-converter';
import { ensureEmbeddedServer, stopEmbeddedServer } from '../../src/server/embedded-server';
import { SERVER_PID_FILE } from '../../src/server/files';
import { findTemporalBinary } from '../../src/server/temporal-cli';
import { START_DEV_DYNAMIC_CONFIG_FLAGS } from '../../src/server/tuning';
import type { AnyTool } from '../../src/tools/define';
import { createModelClient, createWorker, type WaveloopWorkerOptions } from '../../src/worker';
import { cachedWorkflowBundle } from '../../src/worker/bundle-cache';
import { FakeModel } from '../../test/support/fake-model';
import { freePort } from '../../test/support/ports';
import { benchTool } from './bench-tool';

const EventType = temporal.api.enums.v1.EventType;

/** The agent of every waveloop run in the benchmarks: a short system prompt and the bench tool. */
const BENCH_AGENT = defineAgent({ name: 'default', system: 'You are a benchmark agent. Call the tools as asked.' });

/**
 * What every scenario shares: the embedded Temporal dev server (waveloop's own, on free ports with
 * a temporary data dir), the fake model, one workflow bundle, and connections.
 */
export class BenchEnv {
  /** The fake model (test/support/fake-model.ts, the tests' own), in its goal-encoded mode. */
  private readonly fake = new FakeModel();
  readonly model = this.fake.goalEncoded();
  readonly dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-bench-'));
  address = '';
  /** The claim-check store of the workers and the client, as in the embedded setup. */
  readonly blobStore = blobStoreIn(this.dataDir);
  client!: Client;
  connection!: NativeConnection;
  private bundle: { code: string } | undefined;
  private server: ChildProcess | undefined;

  async start(): Promise<this> {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    this.address = `127.0.0.1:${await freePort()}`;
    const extra = process.env.BENCH_SERVER_ARGS;
    if (extra !== undefined) {
      // Diagnostics: the same CLI with other flags (e.g. no --db-filename, or SQLite pragmas).
      const port = this.address.split(':')[1];
      this.server = spawn(
        findTemporalBinary()!,
        [
          'server',
          'start-dev',
          '--ip',
          '127.0.0.1',
          '--port',
          port,
          '--headless',
          '--log-level',
          'warn',
          ...START_DEV_SEARCH_ATTRIBUTE_FLAGS,
          ...START_DEV_DYNAMIC_CONFIG_FLAGS,
          ...extra.split(' ').filter(Boolean),
        ],
        { stdio: 'ignore' },
      );
      for (let i = 0; i < 100; i++) {
        try {
          const c = await Connection.connect({ address: this.address, connectTimeout: '1s' });
          await c.workflowService.describeNamespace({ namespace: 'default' });
          await c.close();
          break;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    } else {
      await ensureEmbeddedServer({ dataDir: this.dataDir, address: this.address, uiPort: await freePort() });
    }
    await this.fake.start();
    this.client = new Client({
      connection: await Connection.connect({ address: this.address }),
      dataConverter: waveloopDataConverter(this.blobStore),
    });
    this.connection = await NativeConnection.connect({ address: this.address });
    // Through the workers' bundle cache: built once per change of the sources, as `waveloop worker` builds it.
    const bundle = await cachedWorkflowBundle({ workflowsPath: require.resolve('../../src/workflows') });
    this.bundle = { code: await fs.promises.readFile(bundle, 'utf8') };
    return this;
  }

  async stop(): Promise<void> {
    await this.client?.connection.close().catch(() => undefined);
    await this.connection?.close().catch(() => undefined);
    await this.fake.stop();
    if (this.server) this.server.kill('SIGTERM');
    else await stopEmbeddedServer(this.dataDir);
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }

  /** The Temporal server's process id (for its CPU time), when known. */
  serverPid(): number | undefined {
    if (this.server) return this.server.pid;
    try {
      return (JSON.parse(fs.readFileSync(path.join(this.dataDir, SERVER_PID_FILE), 'utf8')) as { pid: number }).pid;
    } catch {
      return undefined;
    }
  }

  /** Writes the workflow bundle to a file, for worker processes (`workflowBundle: { codePath }`). */
  async writeBundle(file: string): Promise<void> {
    await fs.promises.writeFile(file, this.bundle!.code);
  }

  /** A waveloop worker with the bench tool on a task queue of its own. */
  async worker(
    tuning: WaveloopWorkerOptions['tuning'] = {},
    options: { tools?: AnyTool[]; agents?: AgentDefinition[] } = {},
  ): Promise<{ worker: Worker; taskQueue: string }> {
    const taskQueue = `bench-${randomUUID()}`;
    const worker = await createWorker({
      connection: this.connection,
      client: this.client,
      namespace: 'default',
      taskQueue,
      tools: options.tools ?? [benchTool],
      agents: [BENCH_AGENT, ...(options.agents ?? [])],
      openai: createModelClient({ baseURL: this.model.baseURL, apiKey: 'bench' }),
      defaults: { model: 'bench-model' },
      workflowBundle: this.bundle,
      blobStore: this.blobStore,
      tuning: { ...tuning, ...(process.env.BENCH_TUNING ? JSON.parse(process.env.BENCH_TUNING) : {}) },
    });
    return { worker, taskQueue };
  }
}

/** A history's events, each with its encoded size in bytes. */
export function sizedEvents(
  history: History,
): Array<{ type: number; bytes: number; time: number; event: temporal.api.history.v1.IHistoryEvent }> {
  return (history.events ?? []).map((event) => ({
    type: Number(event.eventType),
    bytes: temporal.api.history.v1.HistoryEvent.encode(event).finish().length,
    time: timeOf(event),
    event,
  }));
}

export function timeOf(event: temporal.api.history.v1.IHistoryEvent): number {
  const t = event.eventTime;
  return t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0;
}

/** Activity schedule-to-start latencies (ms) of a history: first attempt's start minus its scheduling. */
export function scheduleToStart(history: History): number[] {
  const scheduled = new Map<number, number>();
  const out: number[] = [];
  for (const event of history.events ?? []) {
    if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
      scheduled.set(Number(event.eventId), timeOf(event));
    if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
      const at = scheduled.get(Number(event.activityTaskStartedEventAttributes!.scheduledEventId));
      if (at !== undefined) out.push(timeOf(event) - at);
    }
  }
  return out;
}

/** Every run of a workflow's continue-as-new chain, first to last, with its history. */
export async function chainHistories(client: Client, workflowId: string, firstRunId: string): Promise<History[]> {
  const out: History[] = [];
  let runId: string | undefined = firstRunId;
  while (runId) {
    const history: History = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    out.push(history);
    const last = history.events?.[history.events.length - 1];
    runId =
      last?.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW
        ? (last.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined)
        : undefined;
  }
  return out;
}

export { EventType };
export type { WorkflowHandle };
