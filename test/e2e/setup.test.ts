import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAVELOOP_STATUS } from '../../src/contract/search-attributes';
import { findTemporalBinary } from '../../src/server/temporal-cli';
import { waveloop } from '../support/cli';
import { FakeModel } from '../support/fake-model';
import { freePort } from '../support/ports';
import { eventually } from '../support/wait';

/**
 * `waveloop setup` on a Temporal server that was not started by waveloop (a cluster of one's own):
 * a dev server of this test's own, started without waveloop's `--search-attribute` flags.
 */
const { IndexedValueType } = temporal.api.enums.v1;
let server: ChildProcess;
let address: string;
let connection: Connection;
const fake = new FakeModel();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-setup-'));

beforeAll(async () => {
  const port = await freePort();
  address = `127.0.0.1:${port}`;
  server = spawn(
    findTemporalBinary()!,
    ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'error'],
    { stdio: 'ignore' },
  );
  connection = await eventually(
    () => Connection.connect({ address, connectTimeout: 1_000 }).catch(() => undefined),
    (connected) => connected !== undefined,
    { attempts: 300, problem: `The second dev server never answered on ${address}.` },
  ).then((connected) => connected!);
  await fake.start();
});

afterAll(async () => {
  await connection?.close();
  await fake.stop();
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** waveloop's search attributes on the server's default namespace, with their types. */
async function waveloopAttributes(): Promise<Record<string, number>> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
  return Object.fromEntries(
    Object.entries(customAttributes ?? {}).filter(([name]) => name.startsWith('Waveloop')),
  ) as Record<string, number>;
}

describe('waveloop setup', () => {
  it("waveloop setup: registers waveloop's search attributes on a server that lacks them, says which, and then that they are there already; runs then carry them", async () => {
    const env = {
      TEMPORAL_ADDRESS: address,
      WAVELOOP_TASK_QUEUE: 'setup-test',
      WAVELOOP_DATA_DIR: dataDir,
      OPENAI_BASE_URL: fake.baseURL,
      OPENAI_API_KEY: 'test-key',
      WAVELOOP_MODEL: 'fake-model',
    };
    expect(await waveloopAttributes()).toEqual({});

    const first = await waveloop(['setup'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('Registered WaveloopStatus, WaveloopIteration, WaveloopTokens, WaveloopEval.\n');
    expect(await waveloopAttributes()).toEqual({
      WaveloopStatus: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
      WaveloopIteration: IndexedValueType.INDEXED_VALUE_TYPE_INT,
      WaveloopTokens: IndexedValueType.INDEXED_VALUE_TYPE_INT,
      WaveloopEval: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
    });

    const second = await waveloop(['setup'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe('The search attributes are registered already.\n');

    // A run on that server (served by the command's own worker) now keeps its status searchable.
    fake.script({ content: 'Searchable now.' });
    const run = await waveloop(['run', '--json', '--id', 'setup-run', 'Say hello'], env, { process: true });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed', answer: 'Searchable now.' });
    const described = await new Client({ connection }).workflow.getHandle('setup-run').describe();
    expect(described.typedSearchAttributes.get(WAVELOOP_STATUS)).toBe('completed');
    fake.assertDone();
  });
});
