import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isServerUp } from '../../src/server/address';
import { embeddedServerStatus, ensureEmbeddedServer, stopEmbeddedServer } from '../../src/server/embedded-server';
import { SERVER_DB_FILE, SERVER_PID_FILE } from '../../src/server/files';
import { findTemporalBinary } from '../../src/server/temporal-cli';

// These tests run the real `temporal server start-dev`, on free ports in a temp data dir, in order:
// each one builds on the server state the previous one left.

const TIMEOUT = 60_000;
const PERSISTED_WORKFLOW_ID = 'waveloop-server-test-persisted';

/** Distinct free loopback ports, held open together so the OS cannot hand out the same one twice. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  return ports;
}

async function withClient<T>(address: string, use: (client: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address });
  try {
    return await use(new Client({ connection, namespace: 'default' }));
  } finally {
    await connection.close();
  }
}

let dataDir: string;
let address: string;
let uiPort: number;

beforeAll(async () => {
  if (!findTemporalBinary()) {
    throw new Error(
      'No Temporal CLI found: run `node scripts/install-temporal.js` (installs .tools/temporal/bin/temporal) ' +
        'or set WAVELOOP_TEMPORAL_BIN.',
    );
  }
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-server-test-'));
  const [port, ui] = await freePorts(2);
  address = `127.0.0.1:${port}`;
  uiPort = ui;
});

afterAll(async () => {
  if (!dataDir) return;
  await stopEmbeddedServer(dataDir);
  fs.rmSync(dataDir, { recursive: true, force: true });
}, TIMEOUT);

it(
  'embedded server: ensure starts a server that serves, with its SQLite file in the data dir',
  { timeout: TIMEOUT },
  async () => {
    const result = await ensureEmbeddedServer({ dataDir, address, uiPort });

    expect(result).toEqual({ started: true, address, uiUrl: `http://127.0.0.1:${uiPort}` });
    expect(await isServerUp(address)).toBe(true);
    expect(fs.existsSync(path.join(dataDir, SERVER_DB_FILE))).toBe(true);
    const status = await embeddedServerStatus(dataDir);
    expect(status).toMatchObject({ running: true, serving: true, address, uiUrl: result.uiUrl });
    const pidFile = JSON.parse(fs.readFileSync(path.join(dataDir, SERVER_PID_FILE), 'utf8')) as Record<string, unknown>;
    expect(pidFile).toMatchObject({ pid: status.pid, address, uiPort });
  },
);

it('embedded server: a second ensure finds the running server and starts nothing', { timeout: TIMEOUT }, async () => {
  const before = await embeddedServerStatus(dataDir);

  const result = await ensureEmbeddedServer({ dataDir, address, uiPort });

  expect(result.started).toBe(false);
  expect((await embeddedServerStatus(dataDir)).pid).toBe(before.pid);
});

it(
  'embedded server: the default namespace can be described through @temporalio/client',
  { timeout: TIMEOUT },
  async () => {
    const connection = await Connection.connect({ address });
    try {
      const described = await connection.workflowService.describeNamespace({ namespace: 'default' });
      expect(described.namespaceInfo?.name).toBe('default');
    } finally {
      await connection.close();
    }
  },
);

it('embedded server: stop ends the process and frees the port', { timeout: TIMEOUT }, async () => {
  // A run that no worker will pick up: it stays RUNNING, in the SQLite file, across the restart below.
  await withClient(address, (client) =>
    client.workflow.start('WaveloopServerTestNoSuchWorkflow', {
      taskQueue: 'nobody',
      workflowId: PERSISTED_WORKFLOW_ID,
    }),
  );
  const { pid } = await embeddedServerStatus(dataDir);

  const result = await stopEmbeddedServer(dataDir);

  expect(result).toEqual({ stopped: true, pid });
  expect(await isServerUp(address)).toBe(false);
  expect(await embeddedServerStatus(dataDir)).toEqual({ running: false, serving: false });
  expect(fs.existsSync(path.join(dataDir, SERVER_PID_FILE))).toBe(false);
  expect(fs.existsSync(path.join(dataDir, SERVER_DB_FILE))).toBe(true);
});

it('embedded server: stopping again reports nothing to stop', { timeout: TIMEOUT }, async () => {
  expect(await stopEmbeddedServer(dataDir)).toEqual({ stopped: false });
});

it('embedded server: a restart reuses the SQLite file, so runs survive it', { timeout: TIMEOUT }, async () => {
  const result = await ensureEmbeddedServer({ dataDir, address, uiPort });
  expect(result.started).toBe(true);

  const description = await withClient(address, (client) =>
    client.workflow.getHandle(PERSISTED_WORKFLOW_ID).describe(),
  );

  expect(description.type).toBe('WaveloopServerTestNoSuchWorkflow');
  expect(description.status.name).toBe('RUNNING');
});

it('embedded server: with no Temporal CLI, ensure says how to get one', { timeout: TIMEOUT }, async () => {
  const [port] = await freePorts(1);
  const saved = process.env.WAVELOOP_TEMPORAL_BIN;
  process.env.WAVELOOP_TEMPORAL_BIN = path.join(dataDir, 'no-such-temporal');
  try {
    await expect(ensureEmbeddedServer({ dataDir, address: `127.0.0.1:${port}` })).rejects.toThrow(
      /temporal-bin==1\.9\.1[\s\S]*WAVELOOP_TEMPORAL_BIN[\s\S]*TEMPORAL_ADDRESS/,
    );
  } finally {
    if (saved === undefined) delete process.env.WAVELOOP_TEMPORAL_BIN;
    else process.env.WAVELOOP_TEMPORAL_BIN = saved;
  }
});
