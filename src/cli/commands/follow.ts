import type { Command } from 'commander';
import { requireKind } from '../../client/workflow-kind';
import { atTerminal, followUntilEnd } from '../follow-run';
import { exitStatusOf, listenForStop } from '../stop-signals';
import { action, note, print, settings, withClient, write } from '../support';
import { renderResult } from '../ui/render';
import { noWorkerNote } from '../worker-hint';

/**
 * Following a run to its end, as `waveloop follow` does and `waveloop run` after starting one: its
 * waves live, what it waits for (asked at a terminal), then its result; or, on Ctrl-C or SIGTERM,
 * a line saying the run goes on, and the exit status of that signal (130, 143).
 */

/** Adds `waveloop follow`. */
export function register(program: Command): void {
  program
    .command('follow')
    .argument('<id>', 'workflow id of an agent run')
    .description('follow a run live, wherever it was started: waves, questions, approvals, the answer')
    .action(action((id: string) => followCommand(id)));
}

/** `waveloop follow <id>`: follows an agent run live until its result, or until Ctrl-C or SIGTERM. */
async function followCommand(workflowId: string): Promise<number> {
  const config = settings();
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
          if (!live && !warned)
            note(noWorkerNote(run.taskQueue, config.taskQueue, `nothing carries run ${workflowId} on`));
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
