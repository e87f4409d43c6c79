import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { InvalidArgumentError, type Command } from 'commander';
import { openAuditStore } from '../../audit/open-store';
import { recordRefusal, type RefusedDecision } from '../../audit/refusals';
import { NoWorkerError } from '../../client/no-worker-error';
import type { WaveloopClient } from '../../client/waveloop-client';
import { identifyWorkflow, requireKind, type IdentifiedWorkflow } from '../../client/workflow-kind';
import type { OutcomeChoice } from '../../contract/effects/outcome';
import { UNDO_WORKFLOW } from '../../contract/effects/undo';
import { FailureType } from '../../contract/errors';
import { quorumProgress } from '../../contract/people/approvals';
import { endedNote } from '../ended-note';
import { UsageError } from '../errors';
import { action, byOption, note, osUser, print, settings, withClient } from '../support';
import { renderResult } from '../ui/render';
import { noWorkerNote, startWorker } from '../worker-hint';

/**
 * The commands by which a person decides what a run waits for: `waveloop answer` (a question),
 * `approve` and `deny` (a tool call that waits for approval), `outcome` (a `write` call that may or
 * may not have run), `send` and `end` (a conversation).
 * Each prints what it did and resolves to exit status 0. On a run that has ended each says so, with
 * how it ended, and resolves to 1; so it does when no worker polls the run's task queue (nothing is
 * sent), with how to start one. A run that refuses (nothing waits for that answer) throws, as does
 * an id of no run or of a goal tree.
 */

/** Adds `waveloop answer`, `approve`, `deny`, `outcome`, `send` and `end`. */
export function register(program: Command): void {
  program
    .command('answer')
    .argument('<id>', 'workflow id of an agent run')
    .argument('<text...>', 'the answer')
    .description('answer the question a run is waiting on (ask_question)')
    .action(action((id: string, text: string[]) => answer(id, text)));
  program
    .command('approve')
    .argument('<id>', 'workflow id of an agent run')
    .argument('<callId>', 'the tool call to approve (waveloop pending lists them)')
    .option('--args <json>', "run it with these arguments instead of the model's (a JSON object)", parseArgs)
    .addOption(byOption('decides, recorded with the decision'))
    .description('approve a tool call that waits for approval; it runs at once')
    .action(action((id: string, callId: string, options: Decider & { args?: Args }) => approve(id, callId, options)));
  program
    .command('deny')
    .argument('<id>', 'workflow id of an agent run')
    .argument('<callId>', 'the tool call to deny')
    .requiredOption('--reason <text>', 'why; the model reads it')
    .addOption(byOption('decides, recorded with the decision'))
    .description('deny a tool call that waits for approval')
    .action(action((id: string, callId: string, options: Decider & { reason?: string }) => deny(id, callId, options)));
  program
    .command('outcome')
    .argument('<id>', 'workflow id of an agent run')
    .argument('<callId>', 'the tool call that may or may not have run (waveloop pending lists them)')
    .option('--happened', 'it ran: the call completes (with --result, the result the model reads)')
    .option('--result <text>', 'with --happened: what the call returned, as the model reads it')
    .option('--again', 'it did not run, or should run once more: it runs again')
    .option('--give-up', 'it does not run again: the call fails and the model is told')
    .addOption(byOption('decides, recorded with the decision'))
    .description('say what became of a write call whose attempt may have acted before it was cut off')
    .action(action((id: string, callId: string, options: OutcomeOptions) => outcome(id, callId, options)));
  program
    .command('send')
    .argument('<id>', 'workflow id of an agent run')
    .argument('<text...>', 'your message')
    .description("send the next message of a conversation and print the agent's reply")
    .action(action((id: string, text: string[]) => send(id, text)));
  program
    .command('end')
    .argument('<id>', 'workflow id of an agent run')
    .description('end a conversation')
    .action(action((id: string) => end(id)));
}

/** `waveloop answer <id> <text...>`: answers the question the run waits on. */
async function answer(workflowId: string, words: string[]): Promise<number> {
  return onRunningRun(workflowId, 'answer', async (client) => {
    const answered = await client.runs.answer(workflowId, words.join(' '));
    print(`Answered "${answered.question}".`);
    return 0;
  });
}

/**
 * `waveloop approve <id> <callId> [--args] [--by]`: approves a tool call; it runs once its quorum is
 * met, with the edited arguments if given. A decision `--by` may not make is refused (exit 1).
 */
async function approve(workflowId: string, callId: string, options: Decider & { args?: Args }): Promise<number> {
  const { args, by = osUser() } = options;
  return onRunningRun(workflowId, 'approve', async (client) => {
    const decided = await recordingRefusals({ workflowId, callId, person: by, decision: 'approve' }, () =>
      client.runs.approve(workflowId, callId, { by, args }),
    );
    const edited = args ? ' with the edited arguments' : '';
    print(
      decided.decided === 'waiting'
        ? `Approved ${decided.tool} (call ${decided.callId})${edited}, as ${by}: ${quorumProgress(decided.approvals, decided.quorum)}; it waits for ${decided.quorum - decided.approvals.length} more.`
        : `Approved ${decided.tool} (call ${decided.callId})${edited}, as ${by}.`,
    );
    return 0;
  });
}

/** `waveloop deny <id> <callId> --reason <text> [--by]`: denies a tool call; the model reads the reason. */
async function deny(workflowId: string, callId: string, options: Decider & { reason?: string }): Promise<number> {
  const { reason, by = osUser() } = options;
  return onRunningRun(workflowId, 'deny', async (client) => {
    const decided = await recordingRefusals({ workflowId, callId, person: by, decision: 'deny' }, () =>
      client.runs.deny(workflowId, callId, { reason, by }),
    );
    print(`Denied ${decided.tool} (call ${decided.callId}), as ${by}.`);
    return 0;
  });
}

interface OutcomeOptions extends Decider {
  happened?: boolean;
  result?: string;
  again?: boolean;
  giveUp?: boolean;
}

/**
 * `waveloop outcome <id> <callId> --happened [--result <text>] | --again | --give-up [--by]`: settles
 * a call of unknown outcome. Exactly one choice; `--result` only with `--happened`.
 */
async function outcome(workflowId: string, callId: string, options: OutcomeOptions): Promise<number> {
  const { happened, result, again, giveUp, by = osUser() } = options;
  const chosen = [happened && 'happened', again && 'again', giveUp && 'give_up'].filter(Boolean) as OutcomeChoice[];
  if (chosen.length !== 1) throw new UsageError('Say one of --happened (with --result, maybe), --again or --give-up.');
  if (result !== undefined && !happened) throw new UsageError('--result goes with --happened only.');
  const choice = chosen[0]!;
  return onRunningRun(workflowId, 'outcome', async (client) => {
    const settled = await recordingRefusals({ workflowId, callId, person: by, decision: choice }, () =>
      client.runs.settleOutcome(workflowId, callId, { choice, by, ...(result !== undefined ? { result } : {}) }),
    );
    const what = {
      happened: 'it happened: the call completes',
      again: 'it runs again',
      give_up: 'given up: it does not run again',
    };
    print(`Settled ${settled.tool} (call ${settled.callId}) as ${by}: ${what[choice]}.`);
    return 0;
  });
}

/**
 * `decide()`, and when the run refuses the decision as one `by` may not make, the refusal recorded
 * in the audit trail (docs/audit.md) before it is reported.
 */
async function recordingRefusals<T>(tried: Omit<RefusedDecision, 'why'>, decide: () => Promise<T>): Promise<T> {
  try {
    return await decide();
  } catch (err) {
    const cause = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === FailureType.DecisionNotAllowed) {
      const store = await openAuditStore(settings(), note);
      if (store)
        try {
          await recordRefusal(store, { ...tried, why: cause.message });
        } finally {
          await store.close();
        }
    }
    throw err;
  }
}

type Args = Record<string, unknown>;
interface Decider {
  by?: string;
}

/** `--args <json>`: a JSON object. */
function parseArgs(value: string): Args {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (err) {
    throw new InvalidArgumentError(`must be JSON (${(err as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new InvalidArgumentError('must be a JSON object, like \'{"amount": 900}\'');
  return parsed as Args;
}

/**
 * `waveloop send <id> <text...>`: sends a message and prints the agent's reply (its next `converse`
 * message, or the run's end), polling the run's progress every 250 ms until one comes.
 */
async function send(workflowId: string, words: string[]): Promise<number> {
  return onRunningRun(workflowId, 'send', async (client, run) => {
    // `send` asks the run its progress first, and a query waits for a worker: when none polls the
    // run's task queue, say so at once (the decisions themselves check in `client.runs`).
    if (!(await client.hasLiveWorker(run.taskQueue))) throw new NoWorkerError(workflowId, run.taskQueue);
    const before = (await client.runs.progress(workflowId)).iteration;
    await client.runs.send(workflowId, words.join(' '));
    for (;;) {
      const progress = await client.runs.progress(workflowId);
      if (progress.conversation && progress.iteration > before) {
        print(progress.conversation.message);
        return 0;
      }
      if (progress.phase === 'done') {
        print(renderResult(await client.runs.result(workflowId)));
        return 0;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  });
}

/** `waveloop end <id>`: ends a conversation and prints the run's result. */
async function end(workflowId: string): Promise<number> {
  return onRunningRun(workflowId, 'end', async (client) => {
    await client.runs.end(workflowId);
    print(renderResult(await client.runs.result(workflowId)));
    return 0;
  });
}

/**
 * Runs `work` on `workflowId` when it is an agent run that is still running. When it has ended
 * (before, or while `work` ran), says so and resolves to 1. Only a worker takes a decision: when no
 * worker polls the run's task queue (or none took the decision in time), says so, with how to start
 * one, and resolves to 1.
 */
async function onRunningRun(
  workflowId: string,
  verb: string,
  work: (client: WaveloopClient, run: IdentifiedWorkflow) => Promise<number>,
): Promise<number> {
  const config = settings();
  return withClient(config, async (client) => {
    // An undo (`undo:<run>`) waits for approvals as a run does: approve and deny decide them too.
    const undo = verb === 'approve' || verb === 'deny' ? await identifyWorkflow(client, workflowId) : undefined;
    const run = undo?.workflowType === UNDO_WORKFLOW ? undo : await requireKind(client, workflowId, 'agent run');
    if (run.execution !== 'RUNNING') return endedNote(client, run, verb);
    try {
      return await work(client, run);
    } catch (err) {
      if (err instanceof NoWorkerError) {
        note(noWorkerTook(err, config.taskQueue, verb));
        return 1;
      }
      const now = await identifyWorkflow(client, workflowId);
      if (now.execution !== 'RUNNING') return endedNote(client, now, verb);
      throw err instanceof WorkflowNotFoundError ? new Error(`Run ${workflowId} did not answer: ${err.message}`) : err;
    }
  });
}

/** What to say when no worker took a decision: what became of it, and how to start a worker. */
function noWorkerTook(err: NoWorkerError, configuredQueue: string, verb: string): string {
  const { workflowId, taskQueue } = err;
  if (!err.sent) {
    const consequence = `run ${workflowId} cannot take the decision, and nothing was sent (the run waits on)`;
    return `${noWorkerNote(taskQueue, configuredQueue, consequence)} Then run \`waveloop ${verb}\` again.`;
  }
  return (
    `No worker took the decision within ${Math.round((err.waitedMs ?? 0) / 1000)} s: the worker that last polled task queue "${taskQueue}" seems to have stopped. ` +
    `Run ${workflowId}'s history does not have the decision: a worker that takes the run up soon may still apply it, or it may be lost. ` +
    `Start one with ${startWorker(taskQueue, configuredQueue)}, then see with \`waveloop status ${workflowId}\` whether the run still waits for it.`
  );
}
