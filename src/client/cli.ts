import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { DefaultLogger, type LogEntry, type LogLevel, Runtime, type Worker } from '@temporalio/worker';
import { ZodError } from 'zod';
import { EMBEDDED_ADDRESS, EMBEDDED_UI_PORT, loadConfig, modelConfigProblem, type WaveloopConfig } from '../config';
import { AgentLoopInputSchema, type AgentLoopInput, type AgentLoopResult } from '../common/contract';
import { PURSUE_GOAL_WORKFLOW } from '../common/goal-defaults';
import { describeIssues } from '../common/issues';
import { createStandardWorker } from '../worker';
import { WaveloopClient } from './api';
import { registerCodecServerCommand } from './codec-server';
import { followRun, type FollowOutput } from './follow';
import { registerGoalCommands } from './goal-commands';
import { renderProgress, renderResult, renderResultSummary, renderTranscript, renderWave } from './render';
import { embeddedServerStatus, ensureEmbeddedServer, stopEmbeddedServer } from './server';
import { packageRoot } from './temporal-cli';
import { terminalPrompts, type TerminalPrompts } from './terminal';

/** Exit status for mistakes in the command line or the configuration (runs that fail exit with 1). */
const USAGE_ERROR = 2;

class UsageError extends Error {}

function packageVersion(): string {
  const root = packageRoot();
  if (!root) return 'unknown';
  return (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
}

const print = (line = '') => process.stdout.write(`${line}\n`);
const write = (text: string) => process.stdout.write(text);
const note = (line: string) => process.stderr.write(`${line}\n`);

function parseDuration(value: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError('use a duration like 90s, 10m, 2h or 3d');
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] ?? 's']!;
  return Math.round(Number(match[1]) * unit);
}

function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive whole number');
  return n;
}

/** Starts the embedded dev server unless `TEMPORAL_ADDRESS` points elsewhere; returns the Web UI address, if known. */
async function ensureServer(config: WaveloopConfig): Promise<string | undefined> {
  if (config.temporalAddress) return process.env.WAVELOOP_UI_URL;
  const server = await ensureEmbeddedServer({ dataDir: config.dataDir, address: EMBEDDED_ADDRESS, uiPort: EMBEDDED_UI_PORT });
  if (server.started) note(`Started the embedded Temporal server on ${server.address} (data in ${config.dataDir}).`);
  return server.uiUrl;
}

function runUrl(uiUrl: string | undefined, config: WaveloopConfig, workflowId: string): string | undefined {
  return uiUrl ? `${uiUrl}/namespaces/${config.namespace}/workflows/${encodeURIComponent(workflowId)}` : undefined;
}

async function withClient<T>(config: WaveloopConfig, work: (client: WaveloopClient) => Promise<T>): Promise<T> {
  const client = await WaveloopClient.connect(config);
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

interface RunOptions {
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

async function runCommand(goalWords: string[], options: RunOptions): Promise<number> {
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
      const { worker, close } = await createStandardWorker(config);
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

async function followCommand(workflowId: string): Promise<number> {
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

async function workerCommand(withServer: boolean): Promise<number> {
  const config = loadConfig();
  const problem = modelConfigProblem(config.model);
  if (problem) throw new UsageError(problem);
  const uiUrl = withServer ? await ensureServer(config) : undefined;
  const { worker, close } = await createStandardWorker(config);
  const target = config.temporalAddress ?? EMBEDDED_ADDRESS;
  note(`Worker polling task queue "${config.taskQueue}" on ${target} (namespace ${config.namespace}). Ctrl-C stops it.`);
  if (uiUrl) note(`Temporal Web UI: ${uiUrl}`);
  try {
    await worker.run();
  } finally {
    await close();
  }
  return 0;
}

async function statusCommand(workflowId: string, options: { json?: boolean }): Promise<number> {
  return withClient(loadConfig(), async (client) => {
    const report = await client.status(workflowId);
    if (options.json) {
      print(JSON.stringify(report, null, 2));
      return 0;
    }
    print(`Run:        ${report.workflowId} (${report.execution})`);
    print(`Started:    ${report.startTime.toISOString()}${report.closeTime ? `, closed ${report.closeTime.toISOString()}` : ''}`);
    if (report.progress) renderProgress(report.progress).forEach((line) => print(line));
    else if (report.result) renderResultSummary(report.result).forEach((line) => print(line));
    else if (report.failure) print(`Failure:    ${report.failure}`);
    else print('Progress:   unavailable (no worker answered the status query; start one with `waveloop worker`)');
    return 0;
  });
}

async function showCommand(workflowId: string): Promise<number> {
  return withClient(loadConfig(), async (client) => {
    const report = await client.status(workflowId);
    const waves = report.progress?.waves ?? report.result?.waves ?? [];
    print(`Run ${report.workflowId} (${report.execution})`);
    if (report.failure) print(`Failure: ${report.failure}`);
    print('\nWaves:');
    if (waves.length === 0) print('  (none)');
    waves.forEach((wave) => renderWave(wave).forEach((line) => print(`  ${line}`)));
    print('\nTranscript:');
    try {
      renderTranscript(await client.transcript(workflowId, { quick: true })).forEach((line) => print(`  ${line}`));
    } catch (err) {
      print(`  (unavailable: ${err instanceof Error ? err.message : String(err)}; the transcript query needs a running worker)`);
    }
    if (report.result) print(`\n${renderResult(report.result)}`);
    return 0;
  });
}

async function listCommand(options: { limit: number; json?: boolean; status?: string }): Promise<number> {
  return withClient(loadConfig(), async (client) => {
    const runs = await client.list(options.limit, options.status);
    if (options.json) print(JSON.stringify(runs, null, 2));
    else if (runs.length === 0) print('No runs yet.');
    else runs.forEach((run) => print(`${run.workflowId.padEnd(40)} ${run.execution.padEnd(11)} ${run.startTime.toISOString()}  ${run.workflowType === PURSUE_GOAL_WORKFLOW ? 'goal tree' : 'agent run'}`));
    return 0;
  });
}

async function answerCommand(workflowId: string, words: string[]): Promise<number> {
  return withClient(loadConfig(), async (client) => {
    const answered = await client.answer(workflowId, words.join(' '));
    print(`Answered "${answered.question}".`);
    return 0;
  });
}

async function approveCommand(workflowId: string, callId: string): Promise<number> {
  return withClient(loadConfig(), async (client) => {
    const decided = await client.approve(workflowId, callId);
    print(`Approved ${decided.tool} (call ${decided.callId}).`);
    return 0;
  });
}

async function denyCommand(workflowId: string, callId: string, options: { reason?: string }): Promise<number> {
  return withClient(loadConfig(), async (client) => {
    const decided = await client.deny(workflowId, callId, options.reason);
    print(`Denied ${decided.tool} (call ${decided.callId}).`);
    return 0;
  });
}

/** Sends a message and prints the agent's reply (its next `converse` message, or the run's end). */
async function sendCommand(workflowId: string, words: string[]): Promise<number> {
  return withClient(loadConfig(), async (client) => {
    const before = (await client.progress(workflowId)).iteration;
    await client.send(workflowId, words.join(' '));
    for (;;) {
      const progress = await client.progress(workflowId);
      if (progress.conversation && progress.iteration > before) {
        print(progress.conversation.message);
        return 0;
      }
      if (progress.phase === 'done') {
        print(renderResult(await client.result(workflowId)));
        return 0;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  });
}

async function endCommand(workflowId: string): Promise<number> {
  return withClient(loadConfig(), async (client) => {
    await client.end(workflowId);
    print(renderResult(await client.result(workflowId)));
    return 0;
  });
}

async function cancelCommand(workflowId: string): Promise<number> {
  return withClient(loadConfig(), async (client) => {
    await client.cancel(workflowId);
    print(`Cancellation of ${workflowId} requested.`);
    return 0;
  });
}

function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command('waveloop')
    .description('Durable LLM agent runs on Temporal: every model call and tool call is an activity.')
    .version(packageVersion())
    .showHelpAfterError();
  const action =
    <A extends unknown[]>(fn: (...args: A) => Promise<number>) =>
    async (...args: A) =>
      setExit(await fn(...args));

  program
    .command('run')
    .description('start an agent run and follow it wave by wave until its answer')
    .argument('<goal...>', 'what the agent should do')
    .option('--agent <name>', 'agent profile (default, back-office, …)')
    .option('--model <name>', 'model name (overrides the agent and WAVELOOP_MODEL)')
    .option('--system <prompt>', 'system prompt (overrides the agent)')
    .option('--tools <a,b>', 'tool allowlist, comma-separated')
    .option('--max-iterations <n>', 'iteration limit (default 20)', parsePositiveInt)
    .addOption(new Option('--planner <kind>', 'native tool calls, or one JSON wave plan a turn').choices(['native', 'json']))
    .option('--timeout <duration>', 'hard wall-clock limit of the run, e.g. 10m', parseDuration)
    .option('--id <workflowId>', 'workflow id of the run')
    .option('--chat', 'a conversation: after each answer the run waits for your next message (at a terminal, asked right here)')
    .option('--detach', 'start the run and exit')
    .option('--json', 'print the result object as JSON')
    .action(action((goal: string[], options: RunOptions) => runCommand(goal, options)));

  program
    .command('dev')
    .description('start the embedded Temporal server if needed and run a worker')
    .action(action(() => workerCommand(true)));
  program
    .command('worker')
    .description('run a worker against TEMPORAL_ADDRESS (default: the embedded server)')
    .action(action(() => workerCommand(false)));
  program
    .command('status')
    .argument('<id>', 'workflow id')
    .option('--json', 'print JSON')
    .description("show a run's state, iteration, waves and token usage")
    .action(action((id: string, options: { json?: boolean }) => statusCommand(id, options)));
  program
    .command('show')
    .argument('<id>', 'workflow id')
    .description("show a run's waves and transcript")
    .action(action((id: string) => showCommand(id)));
  program
    .command('list')
    .description('list recent agent runs and goal trees')
    .addOption(new Option('--limit <n>', 'how many').argParser(parsePositiveInt).default(20))
    .option('--status <status>', 'only agent runs in this state, e.g. waiting_for_input or waiting_for_approval')
    .option('--json', 'print JSON')
    .action(action((options: { limit: number; json?: boolean; status?: string }) => listCommand(options)));
  program
    .command('setup')
    .description("register waveloop's search attributes on the namespace (the embedded server has them)")
    .action(
      action(() =>
        withClient(loadConfig(), async (client) => {
          const added = await client.setupSearchAttributes();
          print(added.length ? `Registered ${added.join(', ')}.` : 'The search attributes are registered already.');
          return 0;
        }),
      ),
    );
  program
    .command('follow')
    .argument('<id>', 'workflow id')
    .description('follow a run live, wherever it was started: waves, questions, approvals, the answer')
    .action(action((id: string) => followCommand(id)));
  program
    .command('answer')
    .argument('<id>', 'workflow id')
    .argument('<text...>', 'the answer')
    .description('answer the question a run is waiting on (ask_question)')
    .action(action((id: string, text: string[]) => answerCommand(id, text)));
  program
    .command('approve')
    .argument('<id>', 'workflow id')
    .argument('<callId>', 'the tool call to approve (waveloop status lists them)')
    .description('approve a tool call that waits for approval; it runs at once')
    .action(action((id: string, callId: string) => approveCommand(id, callId)));
  program
    .command('deny')
    .argument('<id>', 'workflow id')
    .argument('<callId>', 'the tool call to deny')
    .option('--reason <text>', 'why; the model reads it')
    .description('deny a tool call that waits for approval')
    .action(action((id: string, callId: string, options: { reason?: string }) => denyCommand(id, callId, options)));
  program
    .command('send')
    .argument('<id>', 'workflow id')
    .argument('<text...>', 'your message')
    .description("send the next message of a conversation and print the agent's reply")
    .action(action((id: string, text: string[]) => sendCommand(id, text)));
  program
    .command('end')
    .argument('<id>', 'workflow id')
    .description('end a conversation')
    .action(action((id: string) => endCommand(id)));
  program
    .command('cancel')
    .argument('<id>', 'workflow id')
    .description('cancel a run')
    .action(action((id: string) => cancelCommand(id)));

  registerGoalCommands(program, {
    print,
    note,
    action,
    parseDuration,
    parsePositiveInt,
    ensureServer,
    runUrl,
    withClient,
    usageError: (message) => new UsageError(message),
    prompts: (client, out) => terminalPrompts(client, out, describeError),
  });
  registerCodecServerCommand(program, { print, note, action });

  const server = program.command('server').description('the embedded Temporal dev server');
  server
    .command('start')
    .description('start it in the background (if nothing answers on 127.0.0.1:7233)')
    .action(
      action(async () => {
        const config = loadConfig();
        const status = await ensureEmbeddedServer({ dataDir: config.dataDir });
        print(`${status.started ? 'Started' : 'Already running:'} Temporal on ${status.address} · Web UI ${status.uiUrl}`);
        return 0;
      }),
    );
  server
    .command('stop')
    .description('stop the embedded server started by waveloop')
    .action(
      action(async () => {
        const result = await stopEmbeddedServer(loadConfig().dataDir);
        print(result.stopped ? `Stopped the embedded Temporal server (pid ${result.pid}).` : 'The embedded Temporal server was not running.');
        return 0;
      }),
    );
  server
    .command('status')
    .description('is the embedded server running?')
    .action(
      action(async () => {
        const status = await embeddedServerStatus(loadConfig().dataDir);
        print(status.running ? `Running (pid ${status.pid}) on ${status.address} · Web UI ${status.uiUrl}` : 'Not running.');
        return 0;
      }),
    );
  return program;
}

function describeError(err: unknown): string {
  if (err instanceof UsageError) return err.message;
  if (err instanceof ZodError) {
    return `Invalid input: ${describeIssues(err.issues, 'input')}`;
  }
  if (err instanceof WorkflowFailedError) {
    const cause = err.cause;
    if (cause instanceof ApplicationFailure) return `Run failed (${cause.type}): ${cause.message}`;
    return `Run failed: ${cause?.message ?? err.message}`;
  }
  if (err instanceof WorkflowNotFoundError) return `No such run: ${err.workflowId}`;
  if (err instanceof WorkflowUpdateFailedError) return `Refused: ${err.cause?.message ?? err.message}`;
  return err instanceof Error ? err.message : String(err);
}

export async function main(argv: string[] = process.argv): Promise<number> {
  let code = 0;
  try {
    await buildProgram((c) => (code = c)).parseAsync(argv);
  } catch (err) {
    note(describeError(err));
    return err instanceof UsageError || err instanceof ZodError ? USAGE_ERROR : 1;
  }
  return code;
}

/** `<time> [LEVEL] <message> (<workflow or activity>): <error>`, one line a log entry. */
function formatLogEntry(entry: LogEntry): string {
  const meta = (entry.meta ?? {}) as Record<string, unknown>;
  const where = [meta.workflowId, meta.activityType].filter(Boolean).join(' ');
  const error = meta.error instanceof Error ? meta.error.message : meta.failure ? String(meta.failure) : '';
  const time = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
  return `${time} [${entry.level}] ${entry.message}${where ? ` (${where})` : ''}${error ? `: ${error}` : ''}`;
}

/** The `waveloop` executable: runs the command line and exits with its status. */
export function runCli(): void {
  // The worker's log goes to stderr, and only warnings unless WAVELOOP_LOG_LEVEL says otherwise,
  // so stdout carries just what the command prints (and stays parseable with --json).
  const level = (process.env.WAVELOOP_LOG_LEVEL?.toUpperCase() ?? 'WARN') as LogLevel;
  Runtime.install({
    logger: new DefaultLogger(level, (entry) => process.stderr.write(`${formatLogEntry(entry)}\n`)),
  });
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}

if (require.main === module) runCli();
