import type { WaveloopClient } from '../client/waveloop-client';
import { endedStatus, type IdentifiedWorkflow } from '../client/workflow-kind';
import { note } from './support';

/** Says that `workflow` has ended, how, and that there is nothing to `verb`; resolves to exit status 1. */
export async function endedNote(client: WaveloopClient, workflow: IdentifiedWorkflow, verb: string): Promise<number> {
  const what = workflow.kind === 'goal tree' ? 'Goal tree' : 'Run';
  note(`${what} ${workflow.workflowId} has ended (${await endedStatus(client, workflow)}); nothing to ${verb}.`);
  return 1;
}
