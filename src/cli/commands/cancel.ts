import type { Command } from 'commander';
import { identifyWorkflow, useInstead } from '../../client/workflow-kind';
import { endedNote } from '../ended-note';
import { UsageError } from '../errors';
import { action, print, settings, withClient } from '../support';

/** Adds `waveloop cancel`. */
export function register(program: Command): void {
  program
    .command('cancel')
    .argument('<id>', 'workflow id of an agent run or a goal tree')
    .description('cancel a run or a goal tree')
    .action(action((id: string) => cancel(id)));
}

/** `waveloop cancel <id>`: requests the cancellation of a run or a goal tree, without waiting for it to end. */
async function cancel(workflowId: string): Promise<number> {
  return withClient(settings(), async (client) => {
    const workflow = await identifyWorkflow(client, workflowId);
    if (workflow.kind === 'other') throw new UsageError(useInstead(workflow));
    if (workflow.execution !== 'RUNNING') return endedNote(client, workflow, 'cancel');
    await client.runs.cancel(workflowId);
    print(`Cancellation of ${workflowId} requested.`);
    return 0;
  });
}
