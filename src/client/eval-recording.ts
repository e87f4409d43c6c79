import type { Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { ModelCallOutput } from '../contract/activity-io';
import type { AgentLoopResult, AssistantMessage } from '../contract/agent-loop';
import type { EvalReport } from '../contract/eval/eval';
import type { Usage } from '../contract/model/usage';

/**
 * A recording of an eval's model replies (`waveloop eval --replay`): for each case, every reply of
 * its run's model calls in order (`callModel`'s results in the run's history) and what each tool
 * call returned as the model read it (its result's waves). A replay answers a case's n-th model call
 * with its n-th reply while the transcript matches: the same goal, and every tool message what it
 * was.
 */
export interface EvalRecording {
  /** The eval it was recorded from (its name). */
  recordingOf: string;
  cases: RecordedCase[];
}

export interface RecordedCase {
  goal: string;
  workflowId: string;
  calls: Array<{ reply: AssistantMessage; usage: Usage }>;
  /** Each tool call's message to the model, by tool call id. */
  toolResults: Record<string, string>;
}

/** Whether `value` is a recording (else it may be a report, whose cases' histories hold one). */
export function isRecording(value: unknown): value is EvalRecording {
  const cases = (value as { cases?: unknown } | null)?.cases;
  return Array.isArray(cases) && cases.every((c) => Array.isArray((c as { calls?: unknown }).calls));
}

/**
 * The recording of `report`'s eval, read from its cases' histories (the latest run of each case, so a
 * case that continued as new replays only its last run's calls). Throws when a case's run is gone
 * (past the namespace's retention).
 */
export async function recordEval(temporal: Client, report: EvalReport): Promise<EvalRecording> {
  const cases: RecordedCase[] = [];
  for (const c of report.cases) cases.push(await recordCase(temporal, c.goal, c.workflowId));
  return { recordingOf: report.name, cases };
}

async function recordCase(temporal: Client, goal: string, workflowId: string): Promise<RecordedCase> {
  const handle = temporal.workflow.getHandle(workflowId);
  const converter = temporal.options.loadedDataConverter;
  const events = (await handle.fetchHistory()).events ?? [];
  const modelCalls = new Set<string>();
  const calls: RecordedCase['calls'] = [];
  let result: AgentLoopResult | undefined;
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'callModel') modelCalls.add(String(event.eventId));
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed && modelCalls.has(String(completed.scheduledEventId))) {
      const output = (await decodeFromPayloadsAtIndex(converter, 0, completed.result?.payloads)) as ModelCallOutput;
      calls.push({ reply: output.message, usage: output.usage });
    }
    const ended = event.workflowExecutionCompletedEventAttributes;
    if (ended) result = (await decodeFromPayloadsAtIndex(converter, 0, ended.result?.payloads)) as AgentLoopResult;
  }
  const toolResults: Record<string, string> = {};
  for (const call of (result?.waves ?? []).flatMap((wave) => wave.calls)) {
    toolResults[call.id] = call.ok ? (call.result ?? '') : `Error: ${call.error}`;
  }
  return { goal, workflowId, calls, toolResults };
}
