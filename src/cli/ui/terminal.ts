import * as readline from 'node:readline/promises';
import { RUN_ENDED } from '../../client/follow';
import type { WaveloopClient } from '../../client/waveloop-client';
import type { RunProgress } from '../../contract/agent-loop';
import { toolSummary } from '../../contract/summaries';
import { isStillAwaited, whatBecameOf, type Awaited } from '../awaited';
import { io } from '../io';
import { osUser } from '../support';
import { answerHint } from './render';

type Approval = RunProgress['pendingApprovals'][number];
type Question = RunProgress['pendingQuestions'][number];

/**
 * What a run waits for from a person, asked at this terminal (`waveloop run`, `follow`, `goal`)
 * instead of printing the command that gives it. The prompts go to stderr, so stdout keeps only
 * what the run says. While a prompt waits for typing, the run is asked every half second whether it
 * still waits for that: once someone else decided it (`waveloop approve` from another terminal, the
 * Web UI) or the run ended, the prompt closes and a line says what became of it, and who did it.
 * Ctrl-C at a prompt closes it and sends this process SIGINT, as Ctrl-C does anywhere else in the
 * command (it stops following). A failed answer is printed, never thrown: the person can still
 * answer with `waveloop answer`/`approve`/`deny`/`send`. `signal` closes a prompt without a word
 * (the command stops following).
 */
export interface TerminalPrompts {
  /** `Approve …? [y/N]`; anything but y/yes denies, with a reason the model reads. */
  approval(workflowId: string, call: Approval, signal?: AbortSignal): Promise<void>;
  /** The question's answer; an empty line leaves it open. */
  question(workflowId: string, question: Question, signal?: AbortSignal): Promise<void>;
  /** A chat's next message (after the model's message of `iteration`); an empty line or `/end` ends the chat. */
  message(workflowId: string, iteration: number, signal?: AbortSignal): Promise<void>;
}

const WATCH_MS = 500;

/** Why a prompt closed before its answer was typed. */
const SETTLED_ELSEWHERE = 'settled elsewhere';

/** Prompts at this terminal, or undefined when stdin is not one (a pipe, CI, a script). */
export function terminalPrompts(
  client: WaveloopClient,
  out: (line: string) => void,
  describeError: (err: unknown) => string,
): TerminalPrompts | undefined {
  if (!io().interactive) return undefined;

  const ask = async (
    workflowId: string,
    awaited: Awaited,
    what: string,
    signal: AbortSignal | undefined,
    work: (question: (prompt: string) => Promise<string>) => Promise<void>,
  ) => {
    const closing = new AbortController();
    const close = (reason: string) => {
      if (!closing.signal.aborted) closing.abort(reason);
    };
    // The run ended: say what became of the prompt's question; else the command stops following.
    const stop = () => close(signal?.reason === RUN_ENDED ? SETTLED_ELSEWHERE : 'stopped');
    signal?.addEventListener('abort', stop);
    if (signal?.aborted) stop();
    const prompt = readline.createInterface({ input: process.stdin, output: process.stderr });
    prompt.on('SIGINT', () => {
      close('Ctrl-C');
      process.kill(process.pid, 'SIGINT');
    });
    let typing = false;
    const watching = (async () => {
      while (!closing.signal.aborted) {
        await new Promise((resolve) => setTimeout(resolve, WATCH_MS));
        if (typing && !closing.signal.aborted && !(await isStillAwaited(client, workflowId, awaited).catch(() => true)))
          close(SETTLED_ELSEWHERE);
      }
    })();
    try {
      await work(async (text) => {
        typing = true;
        try {
          return (await prompt.question(text, { signal: closing.signal })).trim();
        } finally {
          typing = false;
        }
      });
    } catch (err) {
      if (closing.signal.aborted) process.stderr.write('\n');
      if (closing.signal.reason === SETTLED_ELSEWHERE)
        out(await whatBecameOf(client, workflowId, awaited).catch(describeError));
      else if (!closing.signal.aborted) {
        // Typed just as the run moved on: say what happened rather than why the update was refused.
        const moved = !(await isStillAwaited(client, workflowId, awaited).catch(() => true));
        out(
          moved
            ? await whatBecameOf(client, workflowId, awaited).catch(describeError)
            : `Could not ${what}: ${describeError(err)}`,
        );
      }
    } finally {
      close('done');
      signal?.removeEventListener('abort', stop);
      prompt.close();
      await watching;
    }
  };

  return {
    approval: (workflowId, call, signal) =>
      ask(workflowId, { kind: 'approval', call }, `decide ${call.callId}`, signal, async (question) => {
        const reply = (
          await question(
            `${call.reason ? `${call.reason}\n` : ''}Approve ${toolSummary(call.iteration, call.tool, call.args)}? [y/N] `,
          )
        ).toLowerCase();
        const by = osUser();
        if (reply === 'y' || reply === 'yes') await client.runs.approve(workflowId, call.callId, { by });
        else
          await client.runs.deny(workflowId, call.callId, {
            reason: await question('Reason (the model reads it): '),
            by,
          });
      }),
    question: (workflowId, q, signal) =>
      ask(workflowId, { kind: 'question', question: q }, 'answer', signal, async (question) => {
        const text = await question('answer (an empty line leaves it open)> ');
        if (text) await client.runs.answer(workflowId, text);
        else out(`Left open; ${answerHint(workflowId)}`);
      }),
    message: (workflowId, iteration, signal) =>
      ask(workflowId, { kind: 'message', iteration }, 'send the message', signal, async (question) => {
        const text = await question('you (an empty line ends the chat)> ');
        if (text === '' || text === '/end') await client.runs.end(workflowId);
        else await client.runs.send(workflowId, text);
      }),
  };
}
