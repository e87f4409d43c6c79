import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { temporal } from '@temporalio/proto';

/**
 * What people told a run, as its history records it: every update the run accepted (`answer`,
 * `approve`, `deny`, `outcome`, `send`, `end`) with its arguments, its result once it completed, and the
 * identity of the client that sent it (a `waveloop` command sends `<user>@<host>`).
 */
export interface PersonUpdate {
  name: string;
  args: unknown[];
  /** The update's result (absent until it completed, or when it failed). */
  result?: unknown;
  identity?: string;
}

const { EventType } = temporal.api.enums.v1;

/** The updates `workflowId` accepted, oldest first. */
export async function readPersonUpdates(client: Client, workflowId: string): Promise<PersonUpdate[]> {
  const converter = client.options.loadedDataConverter;
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const updates = new Map<string, PersonUpdate>();
  const decodeAll = async (payloads: temporal.api.common.v1.IPayload[] | null | undefined) =>
    Promise.all((payloads ?? []).map((_, i) => decodeFromPayloadsAtIndex(converter, i, payloads!)));
  for (const event of history.events ?? []) {
    if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED) {
      const request = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
      if (!request?.meta?.updateId || !request.input?.name) continue;
      updates.set(request.meta.updateId, {
        name: request.input.name,
        args: await decodeAll(request.input.args?.payloads),
        identity: request.meta.identity || undefined,
      });
    } else if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED) {
      const attributes = event.workflowExecutionUpdateCompletedEventAttributes;
      const update = updates.get(attributes?.meta?.updateId ?? '');
      const success = attributes?.outcome?.success?.payloads;
      if (update && success?.length) update.result = await decodeFromPayloadsAtIndex(converter, 0, success);
    }
  }
  return [...updates.values()];
}
