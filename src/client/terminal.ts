import * as readline from 'node:readline/promises';
import type { RunProgress } from '../common/contract';
import { toolSummary } from '../common/summaries';
import type { WaveloopClient } from './api';
import { answerHint } from './render';

type Approval = RunProgress['pendingApprovals'][number];
type Question = RunProgress['pendingQuestions'][number];

/**
 * What a run waits for from a person, asked at this terminal (`waveloop run`, `follow`, `goal`)
 * instead of printing the command that gives it. The prompts go to stderr, so stdout keeps only
 * what the run says. A failed answer (the run moved on, the server is away) is printed, never thrown:
 * the person can still answer with `waveloop answer`/`approve`/`deny`/`send`.
 */
export interface TerminalPrompts {
  /** `Approve …? [y/N]`; anything but y/yes denies, with a reason the model reads. */
  approval(workflowId: string, call: Approval): Promise<void>;
  /** The question's answer; an empty line leaves it open. */
  question(workflowId: string, question: Question): Promise<void>;
  /** A chat's next message; an empty line or `/end` ends the chat. */
  message(workflowId: string): Promise<void>;
}

/** Prompts at this terminal, or undefined when stdin is not one (a pipe, CI, a script). */
export function terminalPrompts(client: WaveloopClient, out: (line: string) => void, describeError: (err: unknown) => string): TerminalPrompts | undefined {
  if (!process.stdin.isTTY) return undefined;
  const ask = async (what: string, work: (question: (prompt: string) => Promise<string>) => Promise<void>) => {
    const prompt = readline.createInterface({ input: process.stdin, output: process.stderr });
    try {
      await work(async (text) => (await prompt.question(text)).trim());
    } catch (err) {
      out(`Could not ${what}: ${describeError(err)}`);
    } finally {
      prompt.close();
    }
  };
  return {
    approval: (workflowId, call) =>
      ask(`decide ${call.callId}`, async (question) => {
        const reply = (await question(`Approve ${toolSummary(call.iteration, call.tool, call.args)}? [y/N] `)).toLowerCase();
        if (reply === 'y' || reply === 'yes') await client.approve(workflowId, call.callId);
        else await client.deny(workflowId, call.callId, await question('Reason (the model reads it): '));
      }),
    question: (workflowId) =>
      ask('answer', async (question) => {
        const text = await question('answer (an empty line leaves it open)> ');
        if (text) await client.answer(workflowId, text);
        else out(`Left open; ${answerHint(workflowId)}`);
      }),
    message: (workflowId) =>
      ask('send the message', async (question) => {
        const text = await question('you (an empty line ends the chat)> ');
        if (text === '' || text === '/end') await client.end(workflowId);
        else await client.send(workflowId, text);
      }),
  };
}
