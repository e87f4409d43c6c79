import * as path from 'node:path';
import type { Command } from 'commander';
import { modelQueueName } from '../../contract/flow/model-queues';
import type { LoadedProject } from '../../project/load-project';
import { modelConfigProblem, type WorkerDeployment } from '../../settings';
import { UsageError } from '../errors';
import { io } from '../io';
import { action, ensureServer, note, projectOf, settings } from '../support';
import { createCliWorker } from '../worker-runtime';

/**
 * The commands that run a worker until Ctrl-C: `waveloop dev` (the embedded server started first if
 * needed) and `waveloop worker` (against `TEMPORAL_ADDRESS`, default the embedded server).
 */

/** Adds `waveloop dev` and `waveloop worker`. */
export function register(program: Command): void {
  program
    .command('dev')
    .description("start the embedded Temporal server if needed and run a worker with the project's tools")
    .action(action(async () => workerCommand(true, await projectOf(program))));
  program
    .command('worker')
    .description("run a worker with the project's tools against TEMPORAL_ADDRESS (default: the embedded server)")
    .option(
      '--deployment <name>',
      'the Worker Deployment this worker is a version of, with --build-id (default: WAVELOOP_DEPLOYMENT)',
    )
    .option('--build-id <id>', "this build's id in the deployment, with --deployment (default: WAVELOOP_BUILD_ID)")
    .action(action(async (options: WorkerCommandOptions) => workerCommand(false, await projectOf(program), options)));
}

/** The options of `waveloop worker`: a Worker Deployment version, both or neither. */
interface WorkerCommandOptions {
  deployment?: string;
  buildId?: string;
}

/**
 * `waveloop worker` (and `dev`, with `withServer`: the embedded server started first if needed): runs
 * the project's worker until Ctrl-C, as the version `--deployment` and `--build-id` name (else
 * `WAVELOOP_DEPLOYMENT` and `WAVELOOP_BUILD_ID`). Throws a `UsageError` when no model is configured
 * or only one of the two options is given.
 */
async function workerCommand(
  withServer: boolean,
  project: LoadedProject,
  options: WorkerCommandOptions = {},
): Promise<number> {
  const env = settings();
  const config = { ...env, deployment: deploymentOption(options) ?? env.deployment };
  const problem = modelConfigProblem(config.model);
  if (problem) throw new UsageError(problem);
  const uiUrl = withServer ? await ensureServer(config) : undefined;
  const { worker, close } = await createCliWorker(withServer ? 'dev' : 'worker', config, project);
  const target = config.temporalAddress ?? config.embeddedServer.address;
  const { deployment } = config;
  const version = deployment
    ? `, as build ${deployment.buildId} of Worker Deployment "${deployment.name}" (new runs come once it is the current version)`
    : '';
  note(
    `Worker polling task queue "${config.taskQueue}" on ${target} (namespace ${config.namespace}) with ${offered(project)}${version}. Ctrl-C stops it.`,
  );
  const rpm = config.defaults.modelRpm;
  if (rpm !== undefined)
    note(
      `Model calls held to ${rpm} a minute for every worker of the task queue (WAVELOOP_MODEL_RPM): they wait their turn on task queue "${modelQueueName(config.taskQueue)}".`,
    );
  if (uiUrl) note(`Temporal Web UI: ${uiUrl}`);
  try {
    await worker.run();
  } finally {
    await close();
  }
  return 0;
}

/** The version `--deployment` and `--build-id` name, if they are given; a `UsageError` when only one is. */
function deploymentOption({ deployment, buildId }: WorkerCommandOptions): WorkerDeployment | undefined {
  const name = deployment?.trim() || undefined;
  const build = buildId?.trim() || undefined;
  if (name === undefined && build === undefined) return undefined;
  if (name === undefined || build === undefined) {
    throw new UsageError('--deployment and --build-id go together: give both for a versioned worker, or neither.');
  }
  return { name, buildId: build };
}

/** What a worker of `project` offers, in a few words: the config file's tools or the demo's. */
function offered(project: LoadedProject): string {
  const { file, config } = project;
  const parts = [
    ...(file ? [`the tools of ${path.relative(io().cwd, file) || file}`] : []),
    ...(config.demo ? ['the demo tools'] : []),
  ];
  return parts.length ? parts.join(' and ') : 'the built-in tools';
}
