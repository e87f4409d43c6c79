import { AsyncLocalStorage } from 'node:async_hooks';
import * as path from 'node:path';

/**
 * What a command line reads and writes besides Temporal: its output streams, its environment and
 * its working directory. The `waveloop` executable's are its process's; a program that runs
 * commands in its own process (`main(argv, io)`) gives each command its own, and every command
 * reads them through `io()`.
 */
export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  /** Where settings (`WAVELOOP_*`, `OPENAI_*`, `TEMPORAL_*`) and `WAVELOOP_CONFIG` are read. */
  env: NodeJS.ProcessEnv;
  /** Where the project config is looked for, and what paths in messages are relative to. */
  cwd: string;
  /** Whether prompts may ask a person: stdin is a terminal. */
  interactive: boolean;
}

/** An output stream: a process's stdout or stderr, or anything that takes text. */
export interface CliOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

const current = new AsyncLocalStorage<CliIo>();

let processIo: CliIo | undefined;

/** The command line's streams, environment and working directory: those `withIo` gave, else the process's. */
export function io(): CliIo {
  return (
    current.getStore() ??
    (processIo ??= {
      stdout: process.stdout,
      stderr: process.stderr,
      env: process.env,
      cwd: process.cwd(),
      interactive: Boolean(process.stdin.isTTY),
    })
  );
}

/** Runs `work` with `given` as what `io()` answers, in everything it calls and awaits. */
export function withIo<T>(given: CliIo, work: () => T): T {
  return current.run(given, work);
}

/** `file` as given on the command line, resolved against the command line's working directory. */
export function resolvePath(file: string): string {
  return path.resolve(io().cwd, file);
}
