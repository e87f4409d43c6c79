import { loadSettings } from '../../settings';
import type { AgentLoopResult } from '../../contract/agent-loop';
import type { WaveloopClient } from '../../client/waveloop-client';
import { describeError } from '../errors';
import { note, print, withClient, write } from '../support';
import { followRun, type FollowOutput } from '../../client/follow';
import { renderResult } from '../ui/render';
import { exitStatusOf, listenForStop, type StopRequest } from '../stop-signals';
import { terminalPrompts } from '../ui/terminal';
import { requireKind } from '../../client/workflow-kind';

/**
 * Following a run to its end, as `waveloop follow` does and `waveloop run` after starting one: its
 * waves live, what it waits for (asked at a terminal), then its result; or, on Ctrl-C or SIGTERM,
 * a line saying the run goes on, and the exit status of that signal (130, 143).
 */

/** `waveloop follow <id>`: follows an agent run live until its result, or until Ctrl-C or SIGTERM. */
export async function followCommand(workflowId: string): Promise<number> {
  const config = loadSettings();
  const stop = listenForStop();
  try {
    return await withClient(config, async (client) => {
      const run = await requireKind(client, workflowId, 'agent run');
      let warned = false;
      const ended = await followUntilEnd(client, workflowId, stop, {
        line: print,
        text: write,
        // Nothing new for a while: say so if that is because no worker serves the run.
        onIdle: async () => {
          const live = await client.hasLiveWorker(run.taskQueue);
          if (!live && !warned) note(noWorkerNote(run.taskQueue, config.taskQueue, `nothing carries run ${workflowId} on`));
          warned = !live;
        },
        ...atTerminal(client, workflowId),
      });
      if ('signal' in ended) return exitStatusOf(ended.signal);
      print(`\n${renderResult(ended.result)}`);
      return ended.result.status === 'completed' ? 0 : 1;
    });
  } finally {
    stop.dispose();
  }
}

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
  const follow = followRun(client, workflowId, out);
  const stopped = stop.stopped.then((signal) => ({ signal }));
  let ended: { result: AgentLoopResult } | { signal: NodeJS.Signals };
  try {
    ended = await Promise.race([
      client.client
        .withAbortSignal(stop.signal, () => client.result(workflowId))
        .then(
          (result) => ({ result }),
          (err: unknown) => (stop.signal.aborted ? stopped : Promise.reject(err)),
        ),
      stopped,
    ]);
  } catch (err) {
    await follow.stop();
    throw err;
  }
  if ('signal' in ended) {
    await follow.stop();
    note(`Stopped following ${workflowId}; the run goes on in Temporal. A worker (\`waveloop worker\`) carries it on; \`waveloop status ${workflowId}\` shows it.`);
  } else await follow.stop(ended.result);
  return ended;
}

/** At a terminal, what a followed run waits for is asked right there; elsewhere the commands that give it are printed. */
export function atTerminal(client: WaveloopClient, workflowId: string): Pick<FollowOutput, 'onApproval' | 'onQuestion' | 'onMessage'> {
  const prompts = terminalPrompts(client, print, describeError);
  if (!prompts) return {};
  return {
    onApproval: (call, signal) => prompts.approval(workflowId, call, signal),
    onQuestion: (question, signal) => prompts.question(workflowId, question, signal),
    onMessage: (iteration, signal) => prompts.message(workflowId, iteration, signal),
  };
}

/**
 * What to say when no worker polls `taskQueue`: `consequence` (e.g. "run X starts once one does"),
 * and how to start one (with WAVELOOP_TASK_QUEUE when the queue is not the configured one).
 */
export function noWorkerNote(taskQueue: string, configuredQueue: string, consequence: string): string {
  const env = taskQueue === configuredQueue ? '' : `WAVELOOP_TASK_QUEUE=${taskQueue} `;
  return `No worker polls task queue "${taskQueue}", so ${consequence}: start one with \`${env}waveloop worker\` (or \`${env}waveloop dev\`).`;
}
