import { WorkflowNotFoundError } from '@temporalio/client';
import { loadSettings } from '../../settings';
import type { WaveloopClient } from '../../client/waveloop-client';
import { UsageError } from '../errors';
import { note, print, withClient } from '../support';
import { renderResult } from '../ui/render';
import { endedStatus, identifyWorkflow, requireKind, useInstead, type IdentifiedWorkflow } from '../../client/workflow-kind';

/**
 * The commands that answer a run from outside it: `waveloop answer` (a question), `approve` and
 * `deny` (a tool call that waits for approval), `send` and `end` (a conversation), and `cancel` (a
 * run or a goal tree). Each prints what it did and resolves to exit status 0. On a run that has
 * ended each says so, with how it ended, and resolves to 1; a run that refuses (nothing waits for
 * that answer) throws, as does an id of no run or of a goal tree (but for `cancel`).
 */

/** `waveloop answer <id> <text...>`: answers the question the run waits on. */
export async function answerCommand(workflowId: string, words: string[]): Promise<number> {
  return onRunningRun(workflowId, 'answer', async (client) => {
    const answered = await client.answer(workflowId, words.join(' '));
    print(`Answered "${answered.question}".`);
    return 0;
  });
}

/** `waveloop approve <id> <callId>`: approves a tool call; it runs at once. */
export async function approveCommand(workflowId: string, callId: string): Promise<number> {
  return onRunningRun(workflowId, 'approve', async (client) => {
    const decided = await client.approve(workflowId, callId);
    print(`Approved ${decided.tool} (call ${decided.callId}).`);
    return 0;
  });
}

/** `waveloop deny <id> <callId> [--reason]`: denies a tool call; the model reads the reason. */
export async function denyCommand(workflowId: string, callId: string, options: { reason?: string }): Promise<number> {
  return onRunningRun(workflowId, 'deny', async (client) => {
    const decided = await client.deny(workflowId, callId, options.reason);
    print(`Denied ${decided.tool} (call ${decided.callId}).`);
    return 0;
  });
}

/**
 * `waveloop send <id> <text...>`: sends a message and prints the agent's reply (its next `converse`
 * message, or the run's end), polling the run's progress every 250 ms until one comes.
 */
export async function sendCommand(workflowId: string, words: string[]): Promise<number> {
  return onRunningRun(workflowId, 'send', async (client) => {
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

/** `waveloop end <id>`: ends a conversation and prints the run's result. */
export async function endCommand(workflowId: string): Promise<number> {
  return onRunningRun(workflowId, 'end', async (client) => {
    await client.end(workflowId);
    print(renderResult(await client.result(workflowId)));
    return 0;
  });
}

/** `waveloop cancel <id>`: requests the cancellation of a run or a goal tree, without waiting for it to end. */
export async function cancelCommand(workflowId: string): Promise<number> {
  return withClient(loadSettings(), async (client) => {
    const workflow = await identifyWorkflow(client, workflowId);
    if (workflow.kind === 'other') throw new UsageError(useInstead(workflow));
    if (workflow.execution !== 'RUNNING') return ended(client, workflow, 'cancel');
    await client.cancel(workflowId);
    print(`Cancellation of ${workflowId} requested.`);
    return 0;
  });
}

/**
 * Runs `work` on `workflowId` when it is an agent run that is still running. When it has ended
 * (before, or while `work` ran), says so and resolves to 1.
 */
async function onRunningRun(workflowId: string, verb: string, work: (client: WaveloopClient) => Promise<number>): Promise<number> {
  return withClient(loadSettings(), async (client) => {
    const run = await requireKind(client, workflowId, 'agent run');
    if (run.execution !== 'RUNNING') return ended(client, run, verb);
    try {
      return await work(client);
    } catch (err) {
      const now = await identifyWorkflow(client, workflowId);
      if (now.execution !== 'RUNNING') return ended(client, now, verb);
      throw err instanceof WorkflowNotFoundError ? new Error(`Run ${workflowId} did not answer: ${err.message}`) : err;
    }
  });
}

/** Says that `workflow` has ended, how, and that there is nothing to `verb`; resolves to exit status 1. */
async function ended(client: WaveloopClient, workflow: IdentifiedWorkflow, verb: string): Promise<number> {
  const what = workflow.kind === 'goal tree' ? 'Goal tree' : 'Run';
  note(`${what} ${workflow.workflowId} has ended (${await endedStatus(client, workflow)}); nothing to ${verb}.`);
  return 1;
}
