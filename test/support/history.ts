import * as fs from 'node:fs';
import * as path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyToJSON, type History } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import type { BlobStore } from '../../src/payloads/blob-store';
import { decodePayloadSync } from '../../src/payloads/decode-history';

const EventType = temporal.api.enums.v1.EventType;

/** Committed histories that the replay test replays; refreshed by `npm run test:record`. */
export const HISTORIES_DIR = path.join(__dirname, '..', 'replay', 'histories');

/** Saves the run's history under `name` when recording is switched on (WAVELOOP_RECORD_HISTORIES=1). */
/**
 * The workflow id a recorded history replays as (a run's child ids, and its webhook deliveries' ids,
 * derive from it): its file's name, before any `@<what it shows>`, with `~` standing for `/` (a
 * child run's id, `<parent>/<callId>`, names the file `<parent>~<callId>.json`).
 */
export function replayWorkflowId(file: string): string {
  return path.basename(file, '.json').split('@')[0]!.replaceAll('~', '/');
}

export async function recordHistory(name: string, handle: WorkflowHandle): Promise<void> {
  if (process.env.WAVELOOP_RECORD_HISTORIES !== '1') return;
  fs.mkdirSync(HISTORIES_DIR, { recursive: true });
  fs.writeFileSync(path.join(HISTORIES_DIR, `${name}.json`), historyToJSON(await handle.fetchHistory()));
}

/** An activity as the history tells it: when it was scheduled, started and completed. */
export interface ActivityStory {
  type: string;
  summary: string;
  scheduledEventId: number;
  input: unknown;
  inputBytes: number;
  attempts: number;
  /** The worker that ran the last attempt (`<pid>@<host>` unless a worker names itself otherwise). */
  identity?: string;
  completedEventId?: number;
  /** What the activity returned (decoded), when it completed. */
  result?: unknown;
  failedEventId?: number;
}

/** Reads the activities of a history in the order they were scheduled (inputs decoded through waveloop's codecs). */
export function activities(history: History, store?: BlobStore): ActivityStory[] {
  const byScheduled = new Map<number, ActivityStory>();
  for (const event of history.events ?? []) {
    const id = Number(event.eventId);
    if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
      const attrs = event.activityTaskScheduledEventAttributes!;
      const payload = attrs.input?.payloads?.[0];
      byScheduled.set(id, {
        type: attrs.activityType?.name ?? '',
        summary: event.userMetadata?.summary
          ? String(defaultPayloadConverter.fromPayload(event.userMetadata.summary))
          : '',
        scheduledEventId: id,
        input: payload ? defaultPayloadConverter.fromPayload(decodePayloadSync(payload, store)) : undefined,
        inputBytes: payload?.data?.length ?? 0,
        attempts: 0,
      });
    } else if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
      const attrs = event.activityTaskStartedEventAttributes!;
      Object.assign(byScheduled.get(Number(attrs.scheduledEventId))!, {
        attempts: attrs.attempt ?? 1,
        identity: attrs.identity ?? undefined,
      });
    } else if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) {
      const attrs = event.activityTaskCompletedEventAttributes!;
      const story = byScheduled.get(Number(attrs.scheduledEventId))!;
      const payload = attrs.result?.payloads?.[0];
      Object.assign(story, {
        completedEventId: id,
        result: payload ? defaultPayloadConverter.fromPayload(decodePayloadSync(payload, store)) : undefined,
      });
    } else if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED) {
      byScheduled.get(Number(event.activityTaskFailedEventAttributes!.scheduledEventId))!.failedEventId = id;
    }
  }
  return [...byScheduled.values()];
}

/**
 * A local activity as the history tells it: a `core_local_activity` marker, recorded when the
 * workflow task that ran it completed (`workflowTask`: that task's completed event).
 */
export interface LocalActivityStory {
  type: string;
  summary: string;
  eventId: number;
  workflowTask: number;
  attempt: number;
}

/** Reads the local activities of a history in the order they were recorded. */
export function localActivities(history: History): LocalActivityStory[] {
  const found: LocalActivityStory[] = [];
  let workflowTask = 0;
  for (const event of history.events ?? []) {
    if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) workflowTask = Number(event.eventId);
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_local_activity') continue;
    const core = marker.details?.data?.payloads?.[0];
    const data = core
      ? (defaultPayloadConverter.fromPayload(core) as { activity_type: string; attempt: number })
      : undefined;
    found.push({
      type: data?.activity_type ?? '',
      summary: event.userMetadata?.summary
        ? String(defaultPayloadConverter.fromPayload(event.userMetadata.summary))
        : '',
      eventId: Number(event.eventId),
      workflowTask,
      attempt: data?.attempt ?? 1,
    });
  }
  return found;
}

/**
 * The waves of a history's tool calls that ran as local activities, in order: each wave's tools
 * (from the calls' summaries, `wave 2 · get_user(id=2)`) and how many workflow tasks ran them.
 */
export function localWaves(history: History): Array<{ tools: string[]; workflowTasks: number }> {
  const waves = new Map<string, LocalActivityStory[]>();
  for (const call of localActivities(history).filter((a) => a.type === 'runTool')) {
    const wave = call.summary.split(' · ')[0];
    waves.set(wave, [...(waves.get(wave) ?? []), call]);
  }
  return [...waves.values()].map((calls) => ({
    tools: calls.map((a) => a.summary.split(' · ')[1].split('(')[0]),
    workflowTasks: new Set(calls.map((a) => a.workflowTask)).size,
  }));
}

/**
 * The summaries of a history's tool calls (`runTool`), activities and local activities alike, in
 * the order the history has them (an activity by its scheduling, a local activity by its marker).
 */
export function toolCallSummaries(history: History, store?: BlobStore): string[] {
  return [
    ...activities(history, store).map((a) => ({ type: a.type, summary: a.summary, at: a.scheduledEventId })),
    ...localActivities(history).map((a) => ({ type: a.type, summary: a.summary, at: a.eventId })),
  ]
    .filter((call) => call.type === 'runTool')
    .sort((a, b) => a.at - b.at)
    .map((call) => call.summary);
}

/** The data of every payload of a history (as `historyToJSON` writes it), decoded from base64. */
export function payloadTexts(json: string): string[] {
  return [...json.matchAll(/"data":\s*"([A-Za-z0-9+/=]+)"/g)].map((match) =>
    Buffer.from(match[1], 'base64').toString('utf8'),
  );
}

/**
 * The history without its run's result (the WorkflowExecutionCompleted event), whose waves repeat
 * what the model said with their calls (`WaveRecord.said`): for counting what the run's steps recorded.
 */
export function withoutResult(history: History): History {
  return { ...history, events: (history.events ?? []).filter((e) => !e.workflowExecutionCompletedEventAttributes) };
}

/** Every string of a history, payloads decoded from base64, so nothing can hide in an encoding. */
export function historyText(json: string): string {
  return [json, ...payloadTexts(json)].join('\n');
}

/**
 * Every payload of a history's events (inputs, results, summaries, …) that went through the data
 * converter: not search attributes, and not what the SDK's core writes itself into markers (a
 * `patched()` marker's patch id; a local activity's sequence number, type and times, beside its
 * result, which is the converter's).
 */
export function historyPayloads(history: History): Array<{ metadata: Record<string, Uint8Array>; data: Uint8Array }> {
  const found: Array<{ metadata: Record<string, Uint8Array>; data: Uint8Array }> = [];
  const visit = (value: unknown): void => {
    if (!value || typeof value !== 'object' || value instanceof Uint8Array) return;
    const record = value as Record<string, unknown>;
    if (record.markerName === 'core_patch') return;
    if (record.markerName === 'core_local_activity') {
      const { data: _core, ...converted } = (record.details ?? {}) as Record<string, unknown>;
      return visit(converted);
    }
    if (record.data instanceof Uint8Array && record.metadata) found.push(record as (typeof found)[number]);
    else Object.entries(record).forEach(([key, field]) => key !== 'searchAttributes' && visit(field));
  };
  visit(history.events);
  return found;
}
