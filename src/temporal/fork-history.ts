import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { temporal } from '@temporalio/proto';
import type { ModelCallInput, ModelCallOutput } from '../contract/activity-io';
import type { AgentLoopInput, AssistantMessage } from '../contract/agent-loop';

type Payloads = temporal.api.common.v1.IPayload[] | null | undefined;

const { EventType } = temporal.api.enums.v1;

/** A model call of a run whose reply reached the workflow. */
export interface RecordedModelCall {
  /** How many messages the transcript had when the call was made: the reply's index in it. */
  count: number;
  reply: AssistantMessage;
}

/** What one run of an agent run's chain recorded, as `fork` reads it. */
export interface RunRecord {
  runId: string;
  input: AgentLoopInput;
  /** The iteration the run started after: 0, or the previous run's when it was continued as new. */
  carriedIteration: number;
  /** The run of the chain before this one (continue-as-new), if any. */
  continuedFrom?: string;
  /** Its model calls by iteration (the latest reply of an iteration asked again). */
  calls: Map<number, RecordedModelCall>;
  /** Whether its model calls ran as local activities, whose inputs the history does not record. */
  localModelCalls: boolean;
}

/**
 * Reads run `runId` of `workflowId` from its history: its input (and the iteration it carried
 * over), and each `callModel` activity's transcript length and reply. Payloads are decoded with the
 * client's converter and codecs (compression, encryption, the claim check).
 */
export async function readRunRecord(client: Client, workflowId: string, runId: string): Promise<RunRecord> {
  const converter = client.options.loadedDataConverter;
  const decode = async <T>(payloads: Payloads, index = 0): Promise<T | undefined> =>
    payloads && payloads.length > index ? decodeFromPayloadsAtIndex<T>(converter, index, payloads) : undefined;
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const record: RunRecord = {
    runId,
    input: { goal: '' },
    carriedIteration: 0,
    calls: new Map(),
    localModelCalls: false,
  };
  const scheduled = new Map<string, ModelCallInput>();
  for (const event of history.events ?? []) {
    switch (event.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED: {
        const started = event.workflowExecutionStartedEventAttributes;
        record.input = (await decode<AgentLoopInput>(started?.input?.payloads)) ?? record.input;
        const carried = await decode<{ iteration?: number }>(started?.input?.payloads, 1);
        record.carriedIteration = carried?.iteration ?? 0;
        if (started?.continuedExecutionRunId) record.continuedFrom = started.continuedExecutionRunId;
        break;
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: {
        const attributes = event.activityTaskScheduledEventAttributes;
        if (attributes?.activityType?.name !== 'callModel') break;
        const input = await decode<ModelCallInput>(attributes.input?.payloads);
        if (input) scheduled.set(String(event.eventId), input);
        break;
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED: {
        const attributes = event.activityTaskCompletedEventAttributes;
        const input = scheduled.get(String(attributes?.scheduledEventId));
        const output = input && (await decode<ModelCallOutput>(attributes?.result?.payloads));
        if (input && output)
          record.calls.set(input.iteration, { count: input.transcript.count, reply: output.message });
        break;
      }
    }
  }
  record.localModelCalls = record.input.localModelCalls === true;
  return record;
}

/** The highest iteration whose model reply the run recorded (its carried iteration when none). */
export function lastIteration(run: RunRecord): number {
  return Math.max(run.carriedIteration, ...run.calls.keys());
}
