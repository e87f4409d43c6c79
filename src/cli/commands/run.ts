import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { Command } from 'commander';
import type { WaveloopClient } from '../../client/waveloop-client';
import { AgentLoopInputSchema, type AgentLoopInput } from '../../contract/agent-loop';
import type { LoadedProject } from '../../project/load-project';
import { modelConfigProblem, type WaveloopSettings } from '../../settings';
import { UsageError } from '../errors';
import { atTerminal, followUntilEnd } from '../follow-run';
import { InProcessWorker } from '../in-process-worker';
import { readOutputSchemaFile } from '../output-schema-file';
import { settingFields, settingOptions } from '../setting-options';
import { exitStatusOf, listenForStop, type StopRequest } from '../stop-signals';
import {
  action,
  byOption,
  commaList,
  ensureServer,
  note,
  parseDuration,
  print,
  projectOf,
  runUrl,
  settings,
  withClient,
  write,
} from '../support';
import { renderResult } from '../ui/render';
import { noWorkerNote } from '../worker-hint';

/**
 * `waveloop run`: starts a run and follows it to its answer. Resolves to exit status 0 when the run
 * completed, 1 when it ended otherwise, 130 (Ctrl-C) or 143 (SIGTERM) when a signal stopped the
 * following (the run goes on in Temporal).
 */

/** Adds `waveloop run`. */
export function register(program: Command): void {
  const command = program
    .command('run')
    .description('start an agent run and follow it wave by wave until its answer')
    .argument('<goal...>', 'what the agent should do')
    .option('--agent <name>', 'agent profile (default, back-office, …)')
    .option('--system <prompt>', 'system prompt (overrides the agent)')
    .option('--tools <a,b>', 'tool allowlist, comma-separated', commaList);
  // Each setting's flag, named after it; a run's setting wins over its agent's and the worker's.
  for (const option of settingOptions('run')) command.addOption(option);
  command
    .option(
      '--timeout <duration>',
      "Temporal's hard execution timeout of the run, e.g. 10m (the run wraps up before it)",
      parseDuration,
    )
    .option(
      '--output-schema <file>',
      'JSON Schema file the final answer must match (printed as JSON; else invalid_output)',
    )
    .option('--id <workflowId>', 'workflow id of the run')
    .addOption(byOption('starts the run, recorded as its startedBy'))
    .option(
      '--chat',
      'a conversation: after each answer the run waits for your next message (at a terminal, asked right here)',
    )
    .option('--detach', 'start the run and exit (saying so when no worker polls for it)')
    .option('--json', 'print the result object, with the workflow id, as JSON (what the run waits for goes to stderr)')
    .action(action(async (goal: string[], options: RunOptions) => runCommand(goal, options, () => projectOf(program))));
}

/** The options of `waveloop run`. */
interface RunOptions {
  agent?: string;
  system?: string;
  tools?: string[];
  timeout?: number;
  outputSchema?: string;
  id?: string;
  detach?: boolean;
  json?: boolean;
  chat?: boolean;
  by?: string;
}

/**
 * `waveloop run <goal...>`: starts a run and, unless `--detach`, follows it wave by wave until its
 * result. When no worker polls the task queue (at the start, or while the run waits for its first
 * workflow task), it runs a worker in this process until the command ends (`launchRun`).
 */
async function runCommand(
  goalWords: string[],
  options: RunOptions,
  project: () => Promise<LoadedProject>,
): Promise<number> {
  // The input is checked before the project config loads, so a bad flag stops the command at once.
  const input: AgentLoopInput = AgentLoopInputSchema.parse({
    goal: goalWords.join(' '),
    agent: options.agent,
    system: options.system,
    tools: options.tools,
    ...settingFields('run', options),
    conversation: options.chat || undefined,
    startedBy: options.by,
    output: options.outputSchema === undefined ? undefined : readOutputSchemaFile(options.outputSchema),
  });
  return launchRun((client) => client.runs.start(input, { workflowId: options.id, timeout: options.timeout }), {
    options,
    project: await project(),
  });
}

/**
 * Starts a run with `start` (a `run`'s, a `fork`'s, the `demo`'s) once the server is up, with this
 * process's worker when none polls, and, unless `--detach`, follows it to its result; resolves to
 * the command's exit status. `config` (default: `settings()`) gives the task queue and the model
 * endpoint. Throws a `UsageError` when the run would need this machine's worker and no model is
 * configured.
 */
export async function launchRun(
  start: RunStarter,
  {
    options,
    project,
    config = settings(),
  }: { options: LaunchOptions; project: LoadedProject; config?: WaveloopSettings },
): Promise<number> {
  // Runs on the embedded server are served by a worker of this machine, so it needs a model now.
  // A remote cluster's workers carry their own model configuration.
  const problem = config.temporalAddress ? undefined : modelConfigProblem(config.model);
  if (problem) throw new UsageError(problem);

  const uiUrl = await ensureServer(config);
  // Ctrl-C (or SIGTERM) stops the in-process worker and this command, never the run itself.
  const stop = listenForStop();
  try {
    return await withClient(config, (client) => startRun(client, { config, project, start, options, uiUrl, stop }));
  } finally {
    stop.dispose();
  }
}

/** Starts the run (`client.runs.start`, `client.runs.fork`); what it throws ends the command before anything started. */
export type RunStarter = (client: WaveloopClient) => Promise<WorkflowHandleWithFirstExecutionRunId>;

/** The options `run` shares with `fork`: how the run is followed and printed. */
export type LaunchOptions = Pick<RunOptions, 'detach' | 'json'>;

/** A run once the server is up: the in-process worker if needed, the run, and its following. */
async function startRun(
  client: WaveloopClient,
  {
    config,
    project,
    start,
    options,
    uiUrl,
    stop,
  }: {
    config: WaveloopSettings;
    project: LoadedProject;
    start: RunStarter;
    options: LaunchOptions;
    uiUrl?: string;
    stop: StopRequest;
  },
): Promise<number> {
  const inProcess = new InProcessWorker(config, project, () =>
    note(`No worker was polling task queue "${config.taskQueue}": running one in this process for the run.`),
  );
  try {
    if (!options.detach && !(await client.hasLiveWorker())) await inProcess.start();
    const handle = await start(client);
    const id = handle.workflowId;
    const url = runUrl(uiUrl, config, id);
    if (options.detach) {
      if (options.json) print(JSON.stringify({ workflowId: id, runId: handle.firstExecutionRunId }));
      else print(`Started run ${id}${url ? ` · ${url}` : ''}`);
      if (!(await client.hasLiveWorker()))
        note(noWorkerNote(config.taskQueue, config.taskQueue, `run ${id} starts once one does`));
      return 0;
    }
    note(`Run ${id} started${url ? ` · Web UI: ${url}` : ''}`);

    // Until a worker has taken up the run, a few quiet seconds start one here.
    let served = false;
    const ended = await followUntilEnd(client, id, stop, {
      ...(options.json
        ? { line: () => undefined, waiting: note }
        : { line: print, text: write, ...atTerminal(client, id) }),
      onIdle: async () => {
        if (served || inProcess.started) return;
        if (await client.runs.waitingForWorker(id)) await inProcess.start();
        else served = true;
      },
    });
    if ('signal' in ended) return exitStatusOf(ended.signal);
    const { result } = ended;
    print(
      options.json
        ? JSON.stringify({ workflowId: id, runId: handle.firstExecutionRunId, ...result }, null, 2)
        : `\n${renderResult(result)}`,
    );
    return result.status === 'completed' ? 0 : 1;
  } finally {
    await inProcess.stop();
  }
}
