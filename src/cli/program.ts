import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { ZodError } from 'zod';
import { answerCommand, approveCommand, cancelCommand, denyCommand, endCommand, sendCommand } from './commands/decide';
import { describeError, UsageError } from './errors';
import { ensureServer, note, parseDuration, parsePositiveInt, print, runUrl, withClient } from './support';
import { registerCodecServerCommand } from '../payloads/codec-server';
import { registerGoalCommands } from './commands/goal';
import { listCommand, showCommand, statusCommand } from './commands/inspect';
import { RUN_STATES, type RunState } from '../client/run-list';
import { ConfigFileError } from '../project/config-file-error';
import { registerScheduleCommands } from './commands/schedule';
import { followCommand } from './commands/follow';
import type { RunOptions, WorkerCommandOptions } from './commands/run';
import { serverStartCommand, serverStatusCommand, serverStopCommand, setupCommand } from './commands/server';
import { packageRoot } from '../server/temporal-cli';
import { terminalPrompts } from './ui/terminal';

/**
 * The `waveloop` command line: the program with every command, its arguments, options and help
 * (the commands themselves live in `*-commands.ts`), and the entry point. A command resolves to its
 * exit status; a command that throws prints one line to stderr and exits with 2 for a mistake in the
 * command line (commander's own errors too) or the configuration, 1 for anything else.
 */

/** Exit status for mistakes in the command line or the configuration (runs that fail exit with 1). */
const USAGE_ERROR = 2;

function packageVersion(): string {
  const root = packageRoot();
  if (!root) return 'unknown';
  return (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The program; `setExit` receives the exit status of the command that ran. */
export function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command('waveloop')
    .description('Durable LLM agent runs on Temporal: every model call and tool call is an activity.')
    .version(packageVersion())
    .option('--config <file>', 'the project config (default: the nearest waveloop.config.ts, .mjs or .js, else the demo toolkit)')
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError()
    // Mistakes in the command line throw (and exit 2 in `main`) rather than exit 1 from inside commander.
    .exitOverride();
  // Read before anything starts, so a broken config stops the command at once.
  const project = async () => (await import('../project/load-project')).loadProject({ file: program.opts<{ config?: string }>().config ?? process.env.WAVELOOP_CONFIG });
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
    .option('--detach', 'start the run and exit (saying so when no worker polls for it)')
    .option('--json', 'print the result object, with the workflow id, as JSON (what the run waits for goes to stderr)')
    .action(action(async (goal: string[], options: RunOptions) => (await import('./commands/run')).runCommand(goal, options, await project())));

  program
    .command('dev')
    .description("start the embedded Temporal server if needed and run a worker with the project's tools")
    .action(action(async () => (await import('./commands/run')).workerCommand(true, await project())));
  program
    .command('worker')
    .description("run a worker with the project's tools against TEMPORAL_ADDRESS (default: the embedded server)")
    .option('--deployment <name>', 'the Worker Deployment this worker is a version of, with --build-id (default: WAVELOOP_DEPLOYMENT)')
    .option('--build-id <id>', "this build's id in the deployment, with --deployment (default: WAVELOOP_BUILD_ID)")
    .action(action(async (options: WorkerCommandOptions) => (await import('./commands/run')).workerCommand(false, await project(), options)));
  program
    .command('init')
    .description('write a starter waveloop.config.ts here: one tool, one agent')
    .action(action(async () => (await import('./commands/project')).initCommand()));
  program
    .command('tools')
    .description('list the tools a worker offers: name, source (config, demo, MCP server), approval, description')
    .option('--json', 'print JSON')
    .action(action(async (options: { json?: boolean }) => (await import('./commands/project')).toolsCommand(await project(), options)));
  program
    .command('status')
    .argument('<id>', 'workflow id of an agent run or a goal tree')
    .option('--json', 'print JSON')
    .description("show a run's status, iteration, waves, token usage and what waits for a person; a goal tree's status")
    .action(action((id: string, options: { json?: boolean }) => statusCommand(id, options)));
  program
    .command('show')
    .argument('<id>', 'workflow id of an agent run')
    .description("show a run's waves and transcript")
    .action(action((id: string) => showCommand(id)));
  program
    .command('list')
    .description('list recent agent runs and goal trees')
    .addOption(new Option('--limit <n>', 'how many').argParser(parsePositiveInt).default(20))
    .addOption(new Option('--status <status>', 'only agent runs in this state, e.g. waiting_for_input or waiting_for_approval').choices(RUN_STATES))
    .option('--json', 'print JSON')
    .option('--schedule <name>', 'only the runs this schedule started')
    .action(action((options: { limit: number; json?: boolean; status?: RunState; schedule?: string }) => listCommand(options)));
  program
    .command('setup')
    .description("register waveloop's search attributes on the namespace (the embedded server has them)")
    .action(action(() => setupCommand()));
  program
    .command('follow')
    .argument('<id>', 'workflow id of an agent run')
    .description('follow a run live, wherever it was started: waves, questions, approvals, the answer')
    .action(action((id: string) => followCommand(id)));
  program
    .command('answer')
    .argument('<id>', 'workflow id of an agent run')
    .argument('<text...>', 'the answer')
    .description('answer the question a run is waiting on (ask_question)')
    .action(action((id: string, text: string[]) => answerCommand(id, text)));
  program
    .command('approve')
    .argument('<id>', 'workflow id of an agent run')
    .argument('<callId>', 'the tool call to approve (waveloop status lists them)')
    .description('approve a tool call that waits for approval; it runs at once')
    .action(action((id: string, callId: string) => approveCommand(id, callId)));
  program
    .command('deny')
    .argument('<id>', 'workflow id of an agent run')
    .argument('<callId>', 'the tool call to deny')
    .option('--reason <text>', 'why; the model reads it')
    .description('deny a tool call that waits for approval')
    .action(action((id: string, callId: string, options: { reason?: string }) => denyCommand(id, callId, options)));
  program
    .command('send')
    .argument('<id>', 'workflow id of an agent run')
    .argument('<text...>', 'your message')
    .description("send the next message of a conversation and print the agent's reply")
    .action(action((id: string, text: string[]) => sendCommand(id, text)));
  program
    .command('end')
    .argument('<id>', 'workflow id of an agent run')
    .description('end a conversation')
    .action(action((id: string) => endCommand(id)));
  program
    .command('cancel')
    .argument('<id>', 'workflow id of an agent run or a goal tree')
    .description('cancel a run or a goal tree')
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
    project,
    prompts: (client, out) => terminalPrompts(client, out, describeError),
  });
  registerCodecServerCommand(program, { print, note, action });
  registerScheduleCommands(program, action, project);

  const server = program.command('server').description('the embedded Temporal dev server');
  server
    .command('start')
    .description('start it in the background (if nothing answers on 127.0.0.1:7233)')
    .action(action(() => serverStartCommand()));
  server
    .command('stop')
    .description('stop the embedded server started by waveloop')
    .action(action(() => serverStopCommand()));
  server
    .command('status')
    .description('is the embedded server running?')
    .action(action(() => serverStatusCommand()));
  return program;
}

/**
 * Runs the command line `argv` and resolves to its exit status: the command's own, or, when it
 * throws, 2 for a usage or input error and 1 for any other, after one line on stderr saying why.
 */
export async function main(argv: string[] = process.argv): Promise<number> {
  let code = 0;
  try {
    await buildProgram((c) => (code = c)).parseAsync(argv);
  } catch (err) {
    // Commander has printed its message (or the help, or the version) already.
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : USAGE_ERROR;
    note(describeError(err));
    return err instanceof UsageError || err instanceof ZodError || err instanceof ConfigFileError ? USAGE_ERROR : 1;
  }
  return code;
}

/** The `waveloop` executable: runs the command line and exits with its status. */
export function runCli(): void {
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}

if (require.main === module) runCli();
