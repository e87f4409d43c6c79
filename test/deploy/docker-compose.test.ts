import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_SHUTDOWN_GRACE_SECONDS } from '../../src/settings';

/**
 * Static checks of the container stack: docker-compose.yml, the Dockerfile and .dockerignore.
 * No Docker engine is needed; these read the real files, so a broken edit fails here.
 */

const ROOT = path.resolve(__dirname, '..', '..');

type Dict = Record<string, unknown>;

function isDict(value: unknown): value is Dict {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readText(file: string): string {
  return fs.readFileSync(path.join(ROOT, file), 'utf8');
}

function loadCompose(): Dict {
  const doc: unknown = parse(readText('docker-compose.yml'));
  if (!isDict(doc)) throw new Error('docker-compose.yml is not a mapping');
  return doc;
}

function services(): Dict {
  const all = loadCompose().services;
  if (!isDict(all)) throw new Error('docker-compose.yml has no services mapping');
  return all;
}

function service(name: string): Dict {
  const svc = services()[name];
  if (!isDict(svc)) throw new Error(`docker-compose.yml has no service "${name}"`);
  return svc;
}

/** `environment` in either compose form (mapping or list of KEY=VALUE), as strings. */
function environment(svc: Dict): Record<string, string> {
  const env = svc.environment;
  const out: Record<string, string> = {};
  if (Array.isArray(env)) {
    for (const entry of env) {
      const text = String(entry);
      const eq = text.indexOf('=');
      if (eq === -1) out[text] = '';
      else out[text.slice(0, eq)] = text.slice(eq + 1);
    }
  } else if (isDict(env)) {
    for (const [key, value] of Object.entries(env)) out[key] = value === null ? '' : String(value);
  }
  return out;
}

/** Host ports published by a service, in either short ("7233:7233") or long syntax. */
function publishedPorts(svc: Dict): { published: number; target: number }[] {
  const ports = Array.isArray(svc.ports) ? svc.ports : [];
  return ports.map((port: unknown) => {
    if (isDict(port)) return { published: Number(port.published), target: Number(port.target) };
    const parts = String(port)
      .replace(/\/(tcp|udp)$/, '')
      .split(':');
    const target = Number(parts[parts.length - 1]);
    const published = parts.length >= 2 ? Number(parts[parts.length - 2]) : NaN;
    return { published, target };
  });
}

/** Names in `depends_on`, in either the list or the mapping form. */
function dependsOn(svc: Dict): string[] {
  const deps = svc.depends_on;
  if (Array.isArray(deps)) return deps.map(String);
  if (isDict(deps)) return Object.keys(deps);
  return [];
}

function dependencyCondition(svc: Dict, name: string): string | undefined {
  const deps = svc.depends_on;
  if (!isDict(deps)) return undefined;
  const dep = deps[name];
  return isDict(dep) && typeof dep.condition === 'string' ? dep.condition : undefined;
}

/**
 * The tag of an image reference ("16" for "postgres:16"), or undefined when it has none
 * ("postgres", "registry:5000/img"). A digest ("img@sha256:...") counts as a pin.
 */
function imageTag(image: string): string | undefined {
  const [name, digest] = image.split('@');
  const lastSegment = name.split('/').pop() ?? name;
  const colon = lastSegment.indexOf(':');
  if (colon !== -1) return lastSegment.slice(colon + 1);
  return digest;
}

/** Dockerfile instructions (continuation lines joined, comments dropped), grouped by stage. */
function dockerfileStages(): { from: string; instructions: string[] }[] {
  const logical: string[] = [];
  let pending = '';
  for (const raw of readText('Dockerfile').split(/\r?\n/)) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += line.slice(0, -1) + ' ';
      continue;
    }
    logical.push((pending + line).trim());
    pending = '';
  }
  if (pending.trim() !== '') logical.push(pending.trim());

  const stages: { from: string; instructions: string[] }[] = [];
  for (const instruction of logical) {
    if (/^FROM\s/i.test(instruction)) stages.push({ from: instruction, instructions: [] });
    else if (stages.length > 0) stages[stages.length - 1].instructions.push(instruction);
  }
  return stages;
}

function instructionsNamed(instructions: string[], keyword: string): string[] {
  const re = new RegExp(`^${keyword}\\s+`, 'i');
  return instructions.filter((i) => re.test(i)).map((i) => i.replace(re, ''));
}

it('docker-compose: defines the postgresql, temporal, temporal-ui and worker services, and the jobs that set Temporal up', () => {
  expect(Object.keys(services())).toEqual(
    expect.arrayContaining([
      'postgresql',
      'temporal-schema',
      'temporal',
      'temporal-namespace',
      'temporal-ui',
      'worker',
    ]),
  );
});

it('docker-compose: pins every image to an explicit tag, never latest', () => {
  const all = services();
  const images: string[] = [];
  for (const [name, svc] of Object.entries(all)) {
    if (!isDict(svc)) throw new Error(`service ${name} is not a mapping`);
    if (svc.build !== undefined) continue;
    expect(typeof svc.image, `service ${name} has neither build nor image`).toBe('string');
    const image = String(svc.image);
    images.push(image);
    const tag = imageTag(image);
    expect(tag, `image of ${name} (${image}) has no tag`).toBeDefined();
    expect(tag, `image of ${name} (${image}) has no tag`).not.toBe('');
    expect(tag?.toLowerCase(), `image of ${name} (${image}) uses latest`).not.toBe('latest');
    expect(image, `image of ${name} is interpolated, not pinned`).not.toContain('$');
  }
  expect(images.length).toBeGreaterThanOrEqual(3);
  expect(String(service('postgresql').image)).toMatch(/^postgres:\d/);
  expect(String(service('temporal-ui').image)).toMatch(/^temporalio\/ui:\d+\.\d+\.\d+/);
});

it('docker-compose: uses the Temporal images upstream maintains (server and admin-tools of one version), not the deprecated auto-setup', () => {
  const server = /^temporalio\/server:(\d+\.\d+\.\d+)$/.exec(String(service('temporal').image));
  expect(server, 'the temporal service runs temporalio/server').not.toBeNull();
  for (const job of ['temporal-schema', 'temporal-namespace'])
    expect(service(job).image).toBe(`temporalio/admin-tools:${server![1]}`);
  for (const [name, svc] of Object.entries(services()))
    expect(String((svc as Dict).image ?? ''), name).not.toContain('auto-setup');
});

it('docker-compose: the setup jobs run their scripts from deploy/: the schema before the server starts, the namespace before the Web UI and the workers', () => {
  for (const job of ['temporal-schema', 'temporal-namespace']) {
    const svc = service(job);
    const mount = (Array.isArray(svc.volumes) ? svc.volumes : []).map(String).find((v) => v.startsWith('./deploy/'))!;
    const [hostPath, containerPath] = mount.split(':');
    expect(fs.existsSync(path.join(ROOT, hostPath)), `${hostPath} is missing`).toBe(true);
    expect(svc.entrypoint).toEqual(['/bin/sh', containerPath]);
  }
  expect(dependencyCondition(service('temporal-schema'), 'postgresql')).toBe('service_healthy');
  expect(dependencyCondition(service('temporal'), 'temporal-schema')).toBe('service_completed_successfully');
  expect(dependencyCondition(service('temporal-namespace'), 'temporal')).toBe('service_healthy');
  for (const name of ['temporal-ui', 'worker'])
    expect(dependencyCondition(service(name), 'temporal-namespace'), name).toBe('service_completed_successfully');
  expect(environment(service('temporal-namespace')).TEMPORAL_NAMESPACE).toBe(
    environment(service('worker')).TEMPORAL_NAMESPACE,
  );
  expect(environment(service('temporal-schema')).SQL_PASSWORD).toBe(
    environment(service('postgresql')).POSTGRES_PASSWORD,
  );
});

it('docker-compose: a worker that exits with an error (say, without a model endpoint) is restarted a few times, not forever', () => {
  expect(String(service('worker').restart)).toMatch(/^on-failure:[1-9]$/);
  const docs = readText('docs/docker-compose.md');
  expect(docs).toContain('No model endpoint is configured');
  expect(docs).toContain('docker compose logs worker');
});

it('docker-compose: the Web UI keeps no leftover settings; the docs say how the CLI links runs to it (WAVELOOP_UI_URL)', () => {
  expect(Object.keys(environment(service('temporal-ui')))).toEqual(['TEMPORAL_ADDRESS']);
  expect(readText('docs/docker-compose.md')).toMatch(/WAVELOOP_UI_URL=http:\/\/localhost:8080/);
});

it('docker-compose: publishes the Temporal frontend on 7233 and the Web UI on 8080', () => {
  expect(publishedPorts(service('temporal'))).toContainEqual({ published: 7233, target: 7233 });
  expect(publishedPorts(service('temporal-ui'))).toContainEqual({ published: 8080, target: 8080 });
  const ui = environment(service('temporal-ui'));
  expect(ui.TEMPORAL_ADDRESS).toBe('temporal:7233');
});

it('docker-compose: postgresql has credentials, a named volume and a pg_isready healthcheck', () => {
  const pg = service('postgresql');
  const env = environment(pg);
  expect(env.POSTGRES_USER).toBe('temporal');
  expect(env.POSTGRES_PASSWORD).toBe('temporal');
  const volumes = (Array.isArray(pg.volumes) ? pg.volumes : []).map(String);
  const named = volumes.map((v) => v.split(':')[0]).filter((src) => !src.startsWith('.') && !src.startsWith('/'));
  expect(named.length).toBeGreaterThan(0);
  const topLevel = loadCompose().volumes;
  expect(isDict(topLevel) ? Object.keys(topLevel) : []).toEqual(expect.arrayContaining(named));
  const healthcheck = pg.healthcheck;
  expect(isDict(healthcheck) ? JSON.stringify(healthcheck.test) : '').toContain('pg_isready');
});

it('docker-compose: temporal and its schema job use the postgresql service', () => {
  for (const name of ['temporal', 'temporal-schema']) {
    const env = environment(service(name));
    expect(env.POSTGRES_SEEDS, name).toBe('postgresql');
    expect(env.DB_PORT, name).toBe('5432');
    expect(env.POSTGRES_USER, name).toBe(environment(service('postgresql')).POSTGRES_USER);
  }
  const env = environment(service('temporal'));
  expect(env.DB).toBe('postgres12');
  expect(env.POSTGRES_PWD).toBe(environment(service('postgresql')).POSTGRES_PASSWORD);
});

it('docker-compose: the worker is built from the repository Dockerfile', () => {
  const build = service('worker').build;
  let context: string | undefined;
  if (typeof build === 'string') context = build;
  else if (isDict(build)) context = typeof build.context === 'string' ? build.context : '.';
  expect(context, 'worker has no build section').toBeDefined();
  const dockerfile = isDict(build) && typeof build.dockerfile === 'string' ? build.dockerfile : 'Dockerfile';
  const resolved = path.resolve(ROOT, context ?? '', dockerfile);
  expect(resolved).toBe(path.join(ROOT, 'Dockerfile'));
  expect(fs.existsSync(resolved)).toBe(true);
  expect(service('worker').image).toBeUndefined();
});

it('docker-compose: the worker connects to the temporal service on the waveloop task queue', () => {
  const worker = service('worker');
  const env = environment(worker);
  expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
  expect(env.TEMPORAL_NAMESPACE).toBe('default');
  expect(env.WAVELOOP_TASK_QUEUE).toBe('waveloop');
  expect(env.WAVELOOP_DATA_DIR).toBe('/data');
  expect(dependsOn(worker)).toContain('temporal-namespace');
});

it('docker-compose: the worker passes the model endpoint, the encryption keys, its deployment version and shutdown grace through from the host', () => {
  const env = environment(service('worker'));
  const passed = [
    'OPENAI_API_KEY',
    'OPENAI_BASE_URL',
    'WAVELOOP_MODEL',
    'WAVELOOP_STREAM',
    'WAVELOOP_ENCRYPTION_KEY',
    'WAVELOOP_ENCRYPTION_KEY_ID',
    'WAVELOOP_DECRYPTION_KEYS',
  ];
  for (const name of [...passed, 'WAVELOOP_DEPLOYMENT', 'WAVELOOP_BUILD_ID', 'WAVELOOP_SHUTDOWN_GRACE_SECONDS']) {
    expect(env[name], `${name} is not passed through`).toMatch(new RegExp(`^\\$\\{${name}(:?-[^}]*)?\\}$`));
  }
});

it('docker-compose: Docker waits longer for a stopping worker than the worker waits for its calls in flight', () => {
  const seconds = (text: string) => Number(/^(\d+)s$/.exec(text)![1]);
  const grace = String(service('worker').stop_grace_period ?? '10s');
  expect(seconds(grace)).toBeGreaterThan(DEFAULT_SHUTDOWN_GRACE_SECONDS);
});

it('docker-compose: the worker keeps its data in a named volume and can be scaled', () => {
  const worker = service('worker');
  const volumes = (Array.isArray(worker.volumes) ? worker.volumes : []).map(String);
  const data = volumes.find((v) => v.split(':')[1] === '/data');
  expect(data, 'no volume mounted at /data').toBeDefined();
  const source = (data ?? '').split(':')[0];
  const topLevel = loadCompose().volumes;
  expect(isDict(topLevel) ? Object.keys(topLevel) : []).toContain(source);
  // Replicas cannot share a fixed container name or a published host port.
  expect(worker.container_name).toBeUndefined();
  expect(worker.ports).toBeUndefined();
  const deploy = worker.deploy;
  expect(isDict(deploy) ? deploy.replicas : undefined).toBe(1);
});

it('docker-compose: the Dockerfile is multi-stage on node:20-bookworm-slim', () => {
  const stages = dockerfileStages();
  expect(stages.length).toBeGreaterThanOrEqual(2);
  for (const stage of stages) expect(stage.from).toMatch(/^FROM\s+node:20-bookworm-slim(\s|$)/i);
});

it('docker-compose: the build stage installs from the lockfile, builds and skips the Temporal CLI download', () => {
  const [build] = dockerfileStages();
  const runs = instructionsNamed(build.instructions, 'RUN').join('\n');
  const copies = instructionsNamed(build.instructions, 'COPY').join('\n');
  expect(copies).toContain('package-lock.json');
  expect(runs).toMatch(/\bnpm ci\b/);
  expect(runs).toContain('npm run build');
  expect(runs).toContain('better-sqlite3');
  expect(runs).toMatch(/npm prune --omit=dev/);
  expect(instructionsNamed(build.instructions, 'ENV').join('\n')).toContain('WAVELOOP_SKIP_TEMPORAL_INSTALL=1');
});

it('docker-compose: the final stage runs `bin/waveloop.js worker` as a non-root user', () => {
  const stages = dockerfileStages();
  const final = stages[stages.length - 1];
  const users = instructionsNamed(final.instructions, 'USER');
  expect(users.length, 'final stage sets no USER').toBeGreaterThan(0);
  const user = users[users.length - 1].split(':')[0].trim();
  expect(user).toBe('node');
  expect(['root', '0']).not.toContain(user);

  const cmds = instructionsNamed(final.instructions, 'CMD');
  expect(cmds.length, 'final stage has no CMD').toBeGreaterThan(0);
  const cmd: unknown = JSON.parse(cmds[cmds.length - 1]);
  expect(cmd).toEqual(['node', 'bin/waveloop.js', 'worker']);

  // USER comes after the last RUN, so nothing later runs as root.
  const lastUser = final.instructions.map((i) => /^USER\s/i.test(i)).lastIndexOf(true);
  const lastRun = final.instructions.map((i) => /^RUN\s/i.test(i)).lastIndexOf(true);
  expect(lastUser).toBeGreaterThan(lastRun);
});

it('docker-compose: the final stage ships dist/, bin/ and production node_modules from the build stage', () => {
  const stages = dockerfileStages();
  const final = stages[stages.length - 1];
  const buildName = /\sAS\s+(\S+)/i.exec(stages[0].from)?.[1];
  expect(buildName).toBeDefined();
  const copies = instructionsNamed(final.instructions, 'COPY');
  for (const dir of ['dist', 'bin', 'node_modules']) {
    expect(
      copies.some((c) => c.includes(`--from=${buildName}`) && new RegExp(`/${dir}\\b`).test(c)),
      `${dir} is not copied from the build stage`,
    ).toBe(true);
  }
  const runs = instructionsNamed(final.instructions, 'RUN').join('\n');
  expect(runs).not.toMatch(/npm (ci|install)\b(?!.*--omit=dev)/);
  expect(instructionsNamed(final.instructions, 'ENV').join('\n')).toContain('WAVELOOP_SKIP_TEMPORAL_INSTALL=1');
});

it('docker-compose: .dockerignore keeps local state out of the build context', () => {
  const entries = readText('.dockerignore')
    .split(/\r?\n/)
    .map((l) => l.trim().replace(/^\/+|\/+$/g, ''))
    .filter((l) => l !== '' && !l.startsWith('#'));
  expect(entries).toEqual(expect.arrayContaining(['node_modules', 'dist', '.waveloop', '.tools', '.git', 'coverage']));
});

it("docker-compose: the Temporal server gets waveloop's dynamic configuration, the values the embedded server gets", async () => {
  const { SERVER_DYNAMIC_CONFIG } = await import('../../src/server/tuning');
  const temporal = service('temporal');
  const mounted = (Array.isArray(temporal.volumes) ? temporal.volumes : [])
    .map(String)
    .find((v) => v.includes('dynamicconfig'));
  expect(mounted, 'no dynamic config file is mounted into the temporal service').toBeDefined();
  const [hostPath, containerPath] = mounted!.split(':');
  expect(`/etc/temporal/${environment(temporal).DYNAMIC_CONFIG_FILE_PATH}`).toBe(containerPath);
  const file = parse(readText(hostPath)) as Record<string, Array<{ value: unknown }>>;
  expect(Object.fromEntries(Object.entries(file).map(([key, values]) => [key, values[0].value]))).toEqual(
    SERVER_DYNAMIC_CONFIG,
  );
});
