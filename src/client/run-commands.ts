import * as path from 'node:path';
import type { Worker } from '@temporalio/worker';
import { loadConfig, modelConfigProblem } from '../config';
import { AgentLoopInputSchema, type AgentLoopInput, type AgentLoopResult } from '../common/contract';
import type { LoadedProject } from '../project/load-config';
import { createProjectWorker } from '../worker';
import { describeError, UsageError } from './cli-errors';
import { ensureServer, note, print, runUrl, withClient, write } from './cli-support';
import { followRun, type FollowOutput } from './follow';
import { renderResult } from './render';
import { terminalPrompts, type TerminalPrompts } from './terminal';

/**
 * The commands that run agents and follow them: `waveloop run` starts a run and follows it to its
 * answer, `follow` follows one started elsewhere, `dev` and `worker` run a worker. Each resolves to
 * the command's exit status: 0 when the run completed, 1 when it ended otherwise, 130 when Ctrl-C
 * stopped the following (the run goes on in Temporal).
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
 * result. When no worker polls the task queue (at the start, or later while the run waits for one),
 * it runs a worker in this process until the command ends. Throws a `UsageError` when the run would
 * need this machine's worker and no model is configured.
 */
export async function runCommand(goalWords: string[], options: RunOptions, project: LoadedProject): Promise<number> {
  const config = loadConfig();
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
  const stopRequested = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  return withClient(config, async (client) => {
    let inProcess: { worker: Worker; close: () => Promise<void>; running: Promise<void> } | undefined;
    const startWorker = async () => {
      if (inProcess) return;
      const { worker, close } = await createProjectWorker(config, project);
      inProcess = { worker, close, running: worker.run() };
      note(`No worker was polling task queue "${config.taskQueue}": running one in this process for the run.`);
    };
    if (!options.detach && !(await client.hasLiveWorker())) await startWorker();

    try {
      const handle = await client.start(input, { workflowId: options.id, timeout: options.timeout });
      const url = runUrl(uiUrl, config, handle.workflowId);
      if (options.detach) {
        if (options.json) print(JSON.stringify({ workflowId: handle.workflowId, runId: handle.firstExecutionRunId }));
        else print(`Started run ${handle.workflowId}${url ? ` · ${url}` : ''}`);
        return 0;
      }
      if (!options.json) print(`Run ${handle.workflowId} started${url ? ` · Web UI: ${url}` : ''}`);

      const out = options.json ? () => undefined : print;
      const follow = followRun(client, handle.workflowId, {
        line: out,
        text: options.json ? undefined : write,
        onIdle: async () => {
          if (!inProcess && (await client.waitingForWorker(handle.workflowId))) await startWorker();
        },
        ...asksAtTerminal(options.json ? undefined : terminalPrompts(client, out, describeError), handle.workflowId),
      });
      try {
        const ended = await Promise.race([
          handle.result().then((result) => ({ result: result as AgentLoopResult })),
          stopRequested.then(() => ({ result: undefined })),
        ]);
        const result = ended.result;
        if (!result) {
          await follow.stop();
          note(`Stopped following ${handle.workflowId}; the run goes on in Temporal. A worker (\`waveloop worker\`) carries it on; \`waveloop status ${handle.workflowId}\` shows it.`);
          return 130;
        }
        await follow.stop(result);
        print(options.json ? JSON.stringify(result, null, 2) : `\n${renderResult(result)}`);
        return result.status === 'completed' ? 0 : 1;
      } catch (err) {
        await follow.stop();
        throw err;
      }
    } finally {
      if (inProcess) {
        // Ctrl-C has already asked the worker to stop (Temporal's runtime listens for it).
        if (inProcess.worker.getState() === 'RUNNING') inProcess.worker.shutdown();
        await inProcess.running;
        await inProcess.close();
      }
    }
  });
}

/** At a terminal, a followed run's approvals, questions and chat messages are asked right there. */
function asksAtTerminal(prompts: TerminalPrompts | undefined, workflowId: string): Pick<FollowOutput, 'onApproval' | 'onQuestion' | 'onMessage'> {
  if (!prompts) return {};
  return {
    onApproval: (call) => prompts.approval(workflowId, call),
    onQuestion: (question) => prompts.question(workflowId, question),
    onMessage: () => prompts.message(workflowId),
  };
}

/** `waveloop follow <id>`: follows a run live until its result, or until Ctrl-C. */
export async function followCommand(workflowId: string): Promise<number> {
  return withClient(loadConfig(), async (client) => {
    const stopRequested = new Promise<void>((resolve) => process.once('SIGINT', resolve));
    const follow = followRun(client, workflowId, {
      line: print,
      text: write,
      onIdle: async () => undefined,
      ...asksAtTerminal(terminalPrompts(client, print, describeError), workflowId),
    });
    const ended = await Promise.race([
      client.result(workflowId).then((result) => ({ result })),
      stopRequested.then(() => ({ result: undefined })),
    ]);
    await follow.stop(ended.result);
    if (!ended.result) return 130;
    print(`\n${renderResult(ended.result)}`);
    return ended.result.status === 'completed' ? 0 : 1;
  });
}

/**
 * `waveloop worker` (and `dev`, with `withServer`: the embedded server started first if needed): runs
 * the project's worker until Ctrl-C. Throws a `UsageError` when no model is configured.
 */
export async function workerCommand(withServer: boolean, project: LoadedProject): Promise<number> {
  const config = loadConfig();
  const problem = modelConfigProblem(config.model);
  if (problem) throw new UsageError(problem);
  const uiUrl = withServer ? await ensureServer(config) : undefined;
  const { worker, close } = await createProjectWorker(config, project);
  const target = config.temporalAddress ?? config.embeddedServer.address;
  note(`Worker polling task queue "${config.taskQueue}" on ${target} (namespace ${config.namespace}) with ${offered(project)}. Ctrl-C stops it.`);
  if (uiUrl) note(`Temporal Web UI: ${uiUrl}`);
  try {
    await worker.run();
  } finally {
    await close();
  }
  return 0;
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
