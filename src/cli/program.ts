import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command, CommanderError } from 'commander';
import { ZodError } from 'zod';
import { WrongWorkflowKindError } from '../client/workflow-kind';
import { ConfigFileError } from '../project/config-file-error';
import { packageRoot } from '../server/temporal-cli';
import * as audit from './commands/audit';
import * as cancel from './commands/cancel';
import * as codecServer from './commands/codec-server';
import * as decide from './commands/decide';
import * as demo from './commands/demo';
import * as effects from './commands/effects';
import * as evals from './commands/eval';
import * as follow from './commands/follow';
import * as fork from './commands/fork';
import * as goal from './commands/goal';
import * as inspect from './commands/inspect';
import * as pending from './commands/pending';
import * as project from './commands/project';
import * as run from './commands/run';
import * as schedule from './commands/schedule';
import * as serve from './commands/serve';
import * as server from './commands/server';
import * as token from './commands/token';
import * as undo from './commands/undo';
import * as worker from './commands/worker';
import { describeError, UsageError } from './errors';
import { io, withIo, type CliIo } from './io';
import { exitStatus, note } from './support';

/**
 * The `waveloop` command line: the program, which each group of commands in `commands/` adds its
 * commands to (`register(program)`), and the entry point. A command resolves to its exit status; a
 * command that throws prints one line to stderr and exits with 2 for a mistake in the command line
 * (commander's own errors too) or the configuration, 1 for anything else.
 */

/** Exit status for mistakes in the command line or the configuration (runs that fail exit with 1). */
const USAGE_ERROR = 2;

/** The groups of commands, in the order `--help` lists them. */
const COMMANDS = [
  run,
  demo,
  fork,
  worker,
  project,
  inspect,
  effects,
  undo,
  follow,
  pending,
  decide,
  cancel,
  goal,
  evals,
  serve,
  token,
  audit,
  codecServer,
  schedule,
  server,
];

function packageVersion(): string {
  const root = packageRoot();
  if (!root) return 'unknown';
  return (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The program with every command; `exitStatus(program)` is the status of the command it ran. */
export function buildProgram(): Command {
  const program = new Command('waveloop')
    .description(
      'Durable LLM agent runs on Temporal: every model call and tool call is an activity. `waveloop serve` opens the web inbox, where people decide what waits for them.',
    )
    .version(packageVersion())
    .option(
      '--config <file>',
      'the project config (default: the nearest waveloop.config.ts, .mjs or .js, else the demo toolkit)',
    )
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError()
    .configureOutput({ writeOut: (text) => io().stdout.write(text), writeErr: (text) => io().stderr.write(text) })
    // Mistakes in the command line throw (and exit 2 in `main`) rather than exit 1 from inside commander.
    .exitOverride();
  for (const group of COMMANDS) group.register(program);
  return program;
}

/**
 * Runs the command line `argv` and resolves to its exit status: the command's own, or, when it
 * throws, 2 for a usage or input error and 1 for any other, after one line on stderr saying why.
 * With `given`, the command reads and writes those streams, environment and working directory
 * instead of the process's, so commands can run side by side in one process.
 */
export async function main(argv: string[] = process.argv, given?: CliIo): Promise<number> {
  return given ? withIo(given, () => runProgram(argv)) : runProgram(argv);
}

async function runProgram(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    // Commander has printed its message (or the help, or the version) already.
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : USAGE_ERROR;
    note(describeError(err));
    const usage = [UsageError, ZodError, ConfigFileError, WrongWorkflowKindError].some((type) => err instanceof type);
    return usage ? USAGE_ERROR : 1;
  }
  return exitStatus(program);
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
