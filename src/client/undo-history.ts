import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import {
  undoWorkflowId,
  type UndoCallInput,
  type UndoInput,
  type UndoneCall,
  type UndoResult,
} from '../contract/effects/undo';
import { decodeHistoryPayloads } from '../payloads/decode-history';

const { EventType } = temporal.api.enums.v1;

/**
 * What the undos of run `workflowId` reversed so far, read from the last of them (`undo:<run>`):
 * its result's `undoneSoFar` when it completed. One that ended otherwise (terminated, timed out) or
 * still runs is read from its history: what the undos before it had reversed (its input) and each
 * `undoCall` activity of it that completed. Empty when the run was never undone.
 */
export async function readUndone(client: Client, workflowId: string): Promise<UndoneCall[]> {
  const handle = client.workflow.getHandle(undoWorkflowId(workflowId));
  let status: string;
  let runId: string;
  try {
    const described = await handle.describe();
    status = described.status.name;
    runId = described.runId;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return [];
    throw err;
  }
  if (status === 'COMPLETED') return ((await handle.result()) as UndoResult).undoneSoFar;
  return undoneFromHistory(client, undoWorkflowId(workflowId), runId);
}

/** An undo's calls undone, from its history: its input's `undoneBefore` and its completed `undoCall`s. */
async function undoneFromHistory(client: Client, undoId: string, runId: string): Promise<UndoneCall[]> {
  const converter = client.options.loadedDataConverter;
  const history = await decodeHistoryPayloads(
    await client.workflow.getHandle(undoId, runId).fetchHistory(),
    converter.payloadCodecs,
  );
  const decode = (payloads: temporal.api.common.v1.IPayload[] | null | undefined): unknown =>
    payloads?.[0] ? converter.payloadConverter.fromPayload(payloads[0]) : undefined;
  const undone: UndoneCall[] = [];
  let input: UndoInput | undefined;
  const scheduled = new Map<string, UndoCallInput>();
  for (const event of history.events ?? []) {
    if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED) {
      input = decode(event.workflowExecutionStartedEventAttributes?.input?.payloads) as UndoInput;
      undone.push(...(input?.undoneBefore ?? []));
    } else if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
      const attributes = event.activityTaskScheduledEventAttributes;
      if (attributes?.activityType?.name === 'undoCall')
        scheduled.set(String(event.eventId), decode(attributes.input?.payloads) as UndoCallInput);
    } else if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) {
      const call = scheduled.get(String(event.activityTaskCompletedEventAttributes?.scheduledEventId));
      const iteration = input?.calls.find((c) => c.callId === call?.callId)?.iteration ?? 0;
      const seconds = Number(event.eventTime?.seconds ?? 0);
      if (call)
        undone.push({
          callId: call.callId,
          tool: call.tool,
          iteration,
          by: call.by,
          undoRunId: runId,
          at: new Date(seconds * 1000).toISOString(),
        });
    }
  }
  return undone;
}
