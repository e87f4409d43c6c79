import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { defaultAgent } from '../../src/agents/default';
import { WaveloopClient } from '../../src/client/waveloop-client';
import { WAVELOOP_SEARCH_ATTRIBUTES } from '../../src/contract/search-attributes';
import { blobStoreIn } from '../../src/payloads/blob-store';
import { loadSettings } from '../../src/settings';
import { connectionSettings } from '../../src/temporal/connection';
import { builtinTools } from '../../src/tools';
import { createModelClient, createWorker } from '../../src/worker';
import { waveloop, waveloopLive } from '../support/cli';
import { Harness, workflowBundle } from '../support/harness';
import { TlsFrontDoor, type FrontDoorCall } from '../support/tls-front-door';
import { eventually, settled } from '../support/wait';

/**
 * How waveloop reaches Temporal beyond the embedded server: a namespace other than `default`
 * (`TEMPORAL_NAMESPACE`, `settings.namespace`), TLS with a client certificate (`TEMPORAL_TLS_CERT`,
 * `TEMPORAL_TLS_KEY`) or an API key (`TEMPORAL_API_KEY`), and what a TLS connection to a server
 * without TLS says. The dev server cannot serve TLS, so the TLS tests go through a front door
 * (test/support/tls-front-door.ts) that terminates TLS, records who called with what, and relays
 * the calls to it.
 */
const h = new Harness();
const door = new TlsFrontDoor(inject('temporalAddress'));
beforeAll(async () => {
  await Promise.all([h.start(), door.start()]);
});
afterAll(async () => {
  await door.stop();
  await h.stop();
});

/** The environment of a CLI process on a task queue of its own, with the fake model. */
function cliEnv(taskQueue: string): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: h.address,
    WAVELOOP_TASK_QUEUE: taskQueue,
    WAVELOOP_DATA_DIR: h.dataDir,
    OPENAI_BASE_URL: h.fake.baseURL,
    OPENAI_API_KEY: 'test-key',
    WAVELOOP_MODEL: 'fake-model',
  };
}

/** Starts `waveloop worker` with `env` and waits until it polls. */
async function startWorker(env: Record<string, string>) {
  const worker = waveloopLive(['worker'], env);
  await eventually(
    () => worker.stdout() + worker.stderr(),
    (said) => said.includes('Worker polling task queue') || said.includes('Error'),
    { attempts: 300, problem: 'waveloop worker never said it polls.' },
  );
  expect(worker.stdout() + worker.stderr()).toContain('Worker polling task queue');
  return worker;
}

async function stopWorker(worker: ReturnType<typeof waveloopLive>): Promise<void> {
  worker.kill('SIGTERM');
  expect((await settled(worker.done, 'waveloop worker ignored SIGTERM.')).code).toBe(0);
}

/** The calls of the front door since `from`, as `method by who` (the certificate's name, or the API key). */
function callers(calls: FrontDoorCall[], from: number, of: (call: FrontDoorCall) => string | undefined) {
  const byMethod = new Map<string, Set<string>>();
  for (const call of calls.slice(from)) {
    const set = byMethod.get(call.method) ?? new Set<string>();
    set.add(of(call) ?? '(none)');
    byMethod.set(call.method, set);
  }
  return (method: string) => [...(byMethod.get(method) ?? [])].sort();
}

describe('connecting to Temporal', () => {
  it('TEMPORAL_NAMESPACE: waveloop run serves and runs its run in that namespace, not in default; waveloop setup registers the search attributes there', async () => {
    const namespace = `waveloop-ns-${randomUUID().slice(0, 8)}`;
    await h.client.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    const env = { ...cliEnv(`ns-${randomUUID()}`), TEMPORAL_NAMESPACE: namespace };
    h.fake.script({ content: 'Hello from another namespace.' });

    // No worker polls there: the command runs one in this process, in the namespace too.
    const out = await waveloop(['run', '--json', '--id', 'ns-run', 'Say hello'], env, { process: true });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain('No worker was polling task queue');
    expect(JSON.parse(out.stdout)).toMatchObject({
      workflowId: 'ns-run',
      status: 'completed',
      answer: 'Hello from another namespace.',
    });
    h.fake.assertDone();

    const there = await h.client.workflowService.describeWorkflowExecution({
      namespace,
      execution: { workflowId: 'ns-run' },
    });
    expect(there.workflowExecutionInfo?.type?.name).toBe('agentLoop');
    await expect(h.client.workflow.getHandle('ns-run').describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    // The new namespace has none of waveloop's search attributes: the run went on without them.
    expect(Object.keys(there.workflowExecutionInfo?.searchAttributes?.indexedFields ?? {})).not.toContain(
      'WaveloopStatus',
    );

    const names = WAVELOOP_SEARCH_ATTRIBUTES.map((key) => key.name);
    const setup = await waveloop(['setup'], env);
    expect(setup.stdout.trim()).toBe(`Registered ${names.join(', ')}.`);
    const listed = await h.client.connection.operatorService.listSearchAttributes({ namespace });
    expect(Object.keys(listed.customAttributes ?? {})).toEqual(expect.arrayContaining(names));
    // The namespace of the tests' other runs had them already and is untouched.
    expect((await waveloop(['setup'], cliEnv('unused'))).stdout.trim()).toBe(
      'The search attributes are registered already.',
    );
  });

  it("settings.namespace: the library's client and worker start and serve a run in that namespace", async () => {
    const namespace = `waveloop-lib-${randomUUID().slice(0, 8)}`;
    await h.client.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    const settings = loadSettings({ ...cliEnv(`lib-${randomUUID()}`), TEMPORAL_NAMESPACE: namespace });
    expect(settings.namespace).toBe(namespace);
    const client = await WaveloopClient.connect(settings);
    const connection = await NativeConnection.connect(connectionSettings(settings));
    try {
      const worker = await createWorker({
        connection,
        namespace: settings.namespace,
        taskQueue: settings.taskQueue,
        tools: builtinTools(),
        agents: [defaultAgent],
        openai: createModelClient(settings.model),
        defaults: { model: 'fake-model' },
        blobStore: blobStoreIn(settings.dataDir),
        workflowBundle: await workflowBundle(),
        tracing: false,
      });
      h.fake.script({ content: 'Served in my namespace.' });
      const result = await worker.runUntil(async () => {
        const handle = await client.runs.start({ goal: 'Say hello' });
        return client.runs.result(handle.workflowId);
      });
      expect(result).toMatchObject({ status: 'completed', answer: 'Served in my namespace.' });
      h.fake.assertDone();
      const [run] = await eventually(
        () => client.runs.list(),
        (runs) => runs.length === 1,
      );
      await expect(h.client.workflow.getHandle(run.workflowId).describe()).rejects.toBeInstanceOf(
        WorkflowNotFoundError,
      );
    } finally {
      await connection.close();
      await client.close();
    }
  });

  it('mTLS: the worker and the CLI each present the client certificate TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY name, on every call, and the run completes', async () => {
    const from = door.calls.length;
    const workerCert = door.clientCertificate('waveloop-worker');
    const cliCert = door.clientCertificate('waveloop-cli');
    const env = {
      ...cliEnv(`mtls-${randomUUID()}`),
      TEMPORAL_ADDRESS: door.address,
      TEMPORAL_TLS_CA: door.caFile,
    };
    const worker = await startWorker({
      ...env,
      TEMPORAL_TLS_CERT: workerCert.cert,
      TEMPORAL_TLS_KEY: workerCert.key,
    });
    try {
      h.fake.script({ content: 'Hello over mTLS.' });
      const out = await waveloop(['run', '--json', 'Say hello'], {
        ...env,
        TEMPORAL_TLS_CERT: cliCert.cert,
        TEMPORAL_TLS_KEY: cliCert.key,
      });
      expect(out.code, out.stderr).toBe(0);
      expect(JSON.parse(out.stdout)).toMatchObject({ status: 'completed', answer: 'Hello over mTLS.' });
      h.fake.assertDone();
    } finally {
      await stopWorker(worker);
    }
    const by = callers(door.calls, from, (call) => call.clientCertificate);
    expect(by('PollWorkflowTaskQueue')).toEqual(['waveloop-worker']);
    expect(by('RespondWorkflowTaskCompleted')).toEqual(['waveloop-worker']);
    expect(by('StartWorkflowExecution')).toEqual(['waveloop-cli']);
    expect(door.calls.slice(from).filter((call) => call.clientCertificate === undefined)).toEqual([]);
  });

  it('TEMPORAL_API_KEY: the worker and the CLI connect over TLS and send their key as a bearer token on every call', async () => {
    const from = door.calls.length;
    const env = {
      ...cliEnv(`api-key-${randomUUID()}`),
      TEMPORAL_ADDRESS: door.address,
      TEMPORAL_TLS_CA: door.caFile,
    };
    const worker = await startWorker({ ...env, TEMPORAL_API_KEY: 'worker-key' });
    try {
      h.fake.script({ content: 'Hello with a key.' });
      const out = await waveloop(['run', '--json', 'Say hello'], { ...env, TEMPORAL_API_KEY: 'cli-key' });
      expect(out.code, out.stderr).toBe(0);
      expect(JSON.parse(out.stdout)).toMatchObject({ status: 'completed', answer: 'Hello with a key.' });
      h.fake.assertDone();
    } finally {
      await stopWorker(worker);
    }
    const by = callers(door.calls, from, (call) => call.authorization);
    expect(by('PollWorkflowTaskQueue')).toEqual(['Bearer worker-key']);
    expect(by('StartWorkflowExecution')).toEqual(['Bearer cli-key']);
    expect(door.calls.slice(from).filter((call) => call.authorization === undefined)).toEqual([]);
  });

  it('TLS to a server without TLS: the CLI and the worker fail, naming the address and TLS, rather than hang', async () => {
    const env = { ...cliEnv(`no-tls-${randomUUID()}`), TEMPORAL_TLS: 'true' };
    const list = await waveloop(['list'], env);
    expect(list.code).toBe(1);
    expect(list.stderr).toContain(`Could not connect to Temporal at ${h.address} over TLS: `);

    const worker = await settled(waveloop(['worker'], env), 'waveloop worker hung on a TLS connection.');
    expect(worker.code).toBe(1);
    expect(worker.stderr).toContain(`Could not connect to Temporal at ${h.address} over TLS: `);
  });
});
