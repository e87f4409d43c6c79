import { loadConfig } from '../config';
import { print, withClient } from './cli-support';
import { renderResult } from './render';

/**
 * The commands that answer a run from outside it: `waveloop answer` (a question), `approve` and
 * `deny` (a tool call that waits for approval), `send` and `end` (a conversation), and `cancel`.
 * Each prints what it did and resolves to exit status 0; a run that refuses (nothing waits for that
 * answer, the run has ended) throws.
 */

/** `waveloop answer <id> <text...>`: answers the question the run waits on. */
export async function answerCommand(workflowId: string, words: string[]): Promise<number> {
  return withClient(loadConfig(), async (client) => {
    const answered = await client.answer(workflowId, words.join(' '));
    print(`Answered "${answered.question}".`);
    return 0;
  });
}

/** `waveloop approve <id> <callId>`: approves a tool call; it runs at once. */
export async function approveCommand(workflowId: string, callId: string): Promise<number> {
  return withClient(loadConfig(), async (client) => {
    const decided = await client.approve(workflowId, callId);
    print(`Approved ${decided.tool} (call ${decided.callId}).`);
    return 0;
  });
}

/** `waveloop deny <id> <callId> [--reason]`: denies a tool call; the model reads the reason. */
export async function denyCommand(workflowId: string, callId: string, options: { reason?: string }): Promise<number> {
  return withClient(loadConfig(), async (client) => {
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

/** `waveloop end <id>`: ends a conversation and prints the run's result. */
export async function endCommand(workflowId: string): Promise<number> {
  return withClient(loadConfig(), async (client) => {
    await client.end(workflowId);
    print(renderResult(await client.result(workflowId)));
    return 0;
  });
}

/** `waveloop cancel <id>`: requests the run's cancellation, without waiting for it to end. */
export async function cancelCommand(workflowId: string): Promise<number> {
  return withClient(loadConfig(), async (client) => {
    await client.cancel(workflowId);
    print(`Cancellation of ${workflowId} requested.`);
    return 0;
  });
}
