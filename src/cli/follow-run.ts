import type { WaveloopClient } from '../client/waveloop-client';
import type { AgentLoopResult } from '../contract/agent-loop';
import { describeError } from './errors';
import type { StopRequest } from './stop-signals';
import { note, print } from './support';
import { RunPrinter, type FollowOutput } from './ui/run-printer';
import { terminalPrompts } from './ui/terminal';

/**
 * Following a run in the CLI (`waveloop run`, `follow`): printed, with prompts at a terminal, until
 * it ends or a signal stops the command.
 */

/**
 * Follows `workflowId` (printing through `out`) until it ends or `stop` is requested; then stops
 * following and resolves with the run's result, or with the signal (after saying the run goes on).
 */
export async function followUntilEnd(
  client: WaveloopClient,
  workflowId: string,
  stop: StopRequest,
  out: FollowOutput,
): Promise<{ result: AgentLoopResult } | { signal: NodeJS.Signals }> {
  const printer = new RunPrinter(workflowId, out);
  const following = client.runs.follow(workflowId, {
    onEvent: (event, signal) => printer.show(event, signal),
    onIdle: out.onIdle,
    stream: out.text !== undefined,
  });
  const stopped = stop.stopped.then((signal) => ({ signal }));
  let ended: { result: AgentLoopResult } | { signal: NodeJS.Signals } | undefined;
  try {
    ended = await Promise.race([
      client.runs.result(workflowId, { signal: stop.signal }).then(
        (result) => ({ result }),
        (err: unknown) => (stop.signal.aborted ? stopped : Promise.reject(err)),
      ),
      stopped,
    ]);
  } finally {
    await following.stop(ended && 'result' in ended ? ended.result : undefined);
    printer.end();
  }
  if ('signal' in ended) {
    note(
      `Stopped following ${workflowId}; the run goes on in Temporal. A worker (\`waveloop worker\`) carries it on; \`waveloop status ${workflowId}\` shows it.`,
    );
  }
  return ended;
}

/** At a terminal, what a followed run waits for is asked right there; elsewhere the commands that give it are printed. */
export function atTerminal(
  client: WaveloopClient,
  workflowId: string,
): Pick<FollowOutput, 'onApproval' | 'onQuestion' | 'onMessage'> {
  const prompts = terminalPrompts(client, print, describeError);
  if (!prompts) return {};
  return {
    onApproval: (call, signal) => prompts.approval(workflowId, call, signal),
    onQuestion: (question, signal) => prompts.question(workflowId, question, signal),
    onMessage: (iteration, signal) => prompts.message(workflowId, iteration, signal),
  };
}
