import * as path from 'node:path';
import { loadSettings, modelConfigProblem, type WaveloopSettings, type WorkerDeployment } from '../../settings';
import { AgentLoopInputSchema, type AgentLoopInput } from '../../contract/agent-loop';
import type { LoadedProject } from '../../project/load-project';
import type { WaveloopClient } from '../../client/waveloop-client';
import { UsageError } from '../errors';
import { ensureServer, note, print, runUrl, withClient, write } from '../support';
import { atTerminal, followUntilEnd, noWorkerNote } from './follow';
import { InProcessWorker } from '../in-process-worker';
import { renderResult } from '../ui/render';
import { exitStatusOf, listenForStop, type StopRequest } from '../stop-signals';
import { createCliWorker } from '../worker-runtime';

/**
 * The commands that run agents: `waveloop run` starts a run and follows it to its answer
 * (`follow-command.ts` follows), `dev` and `worker` run a worker. Each resolves to the command's
 * exit status: 0 when the run completed, 1 when it ended otherwise, 130 (Ctrl-C) or 143 (SIGTERM)
 * when a signal stopped the following (the run goes on in Temporal).
 */

/** The options of `waveloop run`. */
export interface RunOptions {
  agent?: string;
  model?: string;
  system?: string;
  tools?: string;
  maxIterations?: number;
  planner?: 'native' | 'json';
  timeout?: number;
  id?: string;
  detach?: boolean;
  json?: boolean;
  chat?: boolean;
}

/**
 * `waveloop run <goal...>`: starts a run and, unless `--detach`, follows it wave by wave until its
 * result. When no worker polls the task queue (at the start, or while the run waits for its first
 * workflow task), it runs a worker in this process until the command ends. Throws a `UsageError`
 * when the run would need this machine's worker and no model is configured.
 */
export async function runCommand(goalWords: string[], options: RunOptions, project: LoadedProject): Promise<number> {
  const config = loadSettings();
  const input: AgentLoopInput = AgentLoopInputSchema.parse({
    goal: goalWords.join(' '),
    agent: options.agent,
    model: options.model,
    system: options.system,
    tools: options.tools?.split(',').map((t) => t.trim()).filter(Boolean),
    maxIterations: options.maxIterations,
    planner: options.planner,
    conversation: options.chat || undefined,
  });
  // Runs on the embedded server are served by a worker of this machine, so it needs a model now.
  // A remote cluster's workers carry their own model configuration.
  const problem = config.temporalAddress ? undefined : modelConfigProblem(config.model);
  if (problem) throw new UsageError(problem);

  const uiUrl = await ensureServer(config);
  // Ctrl-C (or SIGTERM) stops the in-process worker and this command, never the run itself.
  const stop = listenForStop();
  try {
    return await withClient(config, (client) => startRun(client, { config, project, input, options, uiUrl, stop }));
  } finally {
    stop.dispose();
  }
}

/** `run` once the server is up: its in-process worker if needed, the run, and its following. */
async function startRun(
  client: WaveloopClient,
  { config, project, input, options, uiUrl, stop }: { config: WaveloopSettings; project: LoadedProject; input: AgentLoopInput; options: RunOptions; uiUrl?: string; stop: StopRequest },
): Promise<number> {
  const inProcess = new InProcessWorker(config, project, () =>
    note(`No worker was polling task queue "${config.taskQueue}": running one in this process for the run.`),
  );
  try {
    if (!options.detach && !(await client.hasLiveWorker())) await inProcess.start();
    const handle = await client.start(input, { workflowId: options.id, timeout: options.timeout });
    const id = handle.workflowId;
    const url = runUrl(uiUrl, config, id);
    if (options.detach) {
      if (options.json) print(JSON.stringify({ workflowId: id, runId: handle.firstExecutionRunId }));
      else print(`Started run ${id}${url ? ` · ${url}` : ''}`);
      if (!(await client.hasLiveWorker())) note(noWorkerNote(config.taskQueue, config.taskQueue, `run ${id} starts once one does`));
      return 0;
    }
    note(`Run ${id} started${url ? ` · Web UI: ${url}` : ''}`);

    // Until a worker has taken up the run, a few quiet seconds start one here.
    let served = false;
    const ended = await followUntilEnd(client, id, stop, {
      ...(options.json ? { line: () => undefined, waiting: note } : { line: print, text: write, ...atTerminal(client, id) }),
      onIdle: async () => {
        if (served || inProcess.started) return;
        if (await client.waitingForWorker(id)) await inProcess.start();
        else served = true;
      },
    });
    if ('signal' in ended) return exitStatusOf(ended.signal);
    const { result } = ended;
    print(options.json ? JSON.stringify({ workflowId: id, runId: handle.firstExecutionRunId, ...result }, null, 2) : `\n${renderResult(result)}`);
    return result.status === 'completed' ? 0 : 1;
  } finally {
    await inProcess.stop();
  }
}

/** The options of `waveloop worker`: a Worker Deployment version, both or neither. */
export interface WorkerCommandOptions {
  deployment?: string;
  buildId?: string;
}

/**
 * `waveloop worker` (and `dev`, with `withServer`: the embedded server started first if needed): runs
 * the project's worker until Ctrl-C, as the version `--deployment` and `--build-id` name (else
 * `WAVELOOP_DEPLOYMENT` and `WAVELOOP_BUILD_ID`). Throws a `UsageError` when no model is configured
 * or only one of the two options is given.
 */
export async function workerCommand(withServer: boolean, project: LoadedProject, options: WorkerCommandOptions = {}): Promise<number> {
  const env = loadSettings();
  const config = { ...env, deployment: deploymentOption(options) ?? env.deployment };
  const problem = modelConfigProblem(config.model);
  if (problem) throw new UsageError(problem);
  const uiUrl = withServer ? await ensureServer(config) : undefined;
  const { worker, close } = await createCliWorker(withServer ? 'dev' : 'worker', config, project);
  const target = config.temporalAddress ?? config.embeddedServer.address;
  const { deployment } = config;
  const version = deployment ? `, as build ${deployment.buildId} of Worker Deployment "${deployment.name}" (new runs come once it is the current version)` : '';
  note(`Worker polling task queue "${config.taskQueue}" on ${target} (namespace ${config.namespace}) with ${offered(project)}${version}. Ctrl-C stops it.`);
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
    ...(file ? [`the tools of ${path.relative(process.cwd(), file) || file}`] : []),
    ...(config.demo ? ['the demo tools'] : []),
  ];
  return parts.length ? parts.join(' and ') : 'the built-in tools';
}
