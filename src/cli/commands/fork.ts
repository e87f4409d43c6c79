import type { Command } from 'commander';
import { ForkRefusedError } from '../../contract/fork/fork';
import type { LoadedProject } from '../../project/load-project';
import { UsageError } from '../errors';
import { action, parsePositiveInt, projectOf } from '../support';
import { launchRun } from './run';

/**
 * `waveloop fork`: starts a new run from another run's transcript after one of its iterations, and
 * follows it as `run` does. Resolves to `run`'s exit statuses; a source run that does not exist or
 * has not reached the iteration is a usage error (exit 2), and nothing starts.
 */

/** Adds `waveloop fork`. */
export function register(program: Command): void {
  program
    .command('fork')
    .description(
      "start a new run from a run's transcript after iteration N (its tool results carried over, no tool runs again) and follow it",
    )
    .argument('<id>', 'workflow id of the run to fork')
    .requiredOption(
      '--at <iteration>',
      'the iteration to fork after, as `waveloop show` numbers them',
      parsePositiveInt,
    )
    .option('--agent <name>', "agent profile to go on with (default: the source run's)")
    .option('--model <name>', "model to go on with (default: the source run's)")
    .option('--system <prompt>', "system prompt to go on with (default: the source run's)")
    .option('--message <text>', 'a user message appended after iteration N, e.g. a correction')
    .option('--id <workflowId>', 'workflow id of the new run')
    .option('--detach', 'start the run and exit (saying so when no worker polls for it)')
    .option('--json', 'print the result object, with the workflow id, as JSON (what the run waits for goes to stderr)')
    .action(action(async (id: string, options: ForkOptions) => forkCommand(id, options, await projectOf(program))));
}

interface ForkOptions {
  at: number;
  agent?: string;
  model?: string;
  system?: string;
  message?: string;
  id?: string;
  detach?: boolean;
  json?: boolean;
}

/** `waveloop fork <id> --at <n>`: checks the source run and iteration, starts the fork and follows it (`launchRun`). */
async function forkCommand(workflowId: string, options: ForkOptions, project: LoadedProject): Promise<number> {
  const { at: iteration, agent, model, system, message, id } = options;
  return launchRun(
    async (client) => {
      try {
        return await client.runs.fork({ workflowId, iteration, message }, { agent, model, system }, { workflowId: id });
      } catch (err) {
        throw err instanceof ForkRefusedError ? new UsageError(err.message) : err;
      }
    },
    { options, project },
  );
}
