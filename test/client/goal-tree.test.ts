import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { createActivities, Registry } from '../../src/activities';
import { parseGoalHistory } from '../../src/client/goal-tree';
import { GOAL_TREE_ACTIVITIES } from '../../src/contract/goal-tree/activities';
import { waveloopDataConverter } from '../../src/payloads/data-converter';
import { decodeHistoryPayloads } from '../../src/payloads/decode-history';
import { HISTORIES_DIR } from '../support/history';

/**
 * The goal tree view (`waveloop tree`, the inbox's tree page, `/api/goals/{id}/tree`) reads a goal's
 * steps from its history by the names of its activities, `GOAL_TREE_ACTIVITIES`. The build holds the
 * workflow and the worker's activities to those names (`satisfies GoalTreeActivities`); these tests
 * fail when an activity is renamed anyway: in the worker's activities, or away from the name the
 * recorded trees ran it by (renaming one means re-recording the histories, whose trees the view
 * could no longer read).
 */

const EventType = temporal.api.enums.v1.EventType;
const History = temporal.api.history.v1.History;

/** `history` as `fetchHistory()` gives it: a decoded message, its times and ids `Long`s. */
const asFetched = (history: temporal.api.history.v1.IHistory) => History.decode(History.encode(history).finish());

/** A recorded goal workflow's history, its payloads decoded as the client decodes them. */
async function recorded(file: string) {
  const history = historyFromJSON(JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8')));
  return decodeHistoryPayloads(asFetched(history), waveloopDataConverter().payloadCodecs ?? []);
}

const GOAL_HISTORIES = fs.readdirSync(HISTORIES_DIR).filter((file) => /^goal-.*\.json$/.test(file));

describe('goal tree view: the activities it reads', () => {
  it('the worker registers every goal tree activity under the name the view reads it by', () => {
    const registered = createActivities({
      registry: new Registry([], []),
      openai: new OpenAI({ apiKey: 'unused' }),
      readTranscript: async () => [],
    }) as Record<string, unknown>;
    for (const name of Object.values(GOAL_TREE_ACTIVITIES)) expect(typeof registered[name], name).toBe('function');
  });

  it('the recorded goal trees ran only activities the view knows by name', async () => {
    expect(GOAL_HISTORIES.length).toBeGreaterThan(0);
    const known: string[] = Object.values(GOAL_TREE_ACTIVITIES);
    for (const file of GOAL_HISTORIES) {
      const ran = ((await recorded(file)).events ?? [])
        .filter((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
        .map((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? '');
      expect(ran.length, file).toBeGreaterThan(0);
      for (const name of ran) expect(known, `${file}: ${name}`).toContain(name);
    }
  });

  it("parseGoalHistory: a recorded tree's root reads as its steps: assessed, decomposed, achieved, synthesized", async () => {
    const { node, childIds } = parseGoalHistory('goal-tree', await recorded('goal-tree.json'));
    expect(node.events.map((event) => event.eventType)).toEqual([
      'started',
      'assessed',
      'decomposed',
      'achieved',
      'synthesized',
    ]);
    expect(node.events[2].data).toMatchObject({ sub_goal_count: childIds.length });
    expect(node.execution).toBe('COMPLETED');
  });

  it('parseGoalHistory: a goal answered directly reads as executed (answer), its input and output typed by the activity', () => {
    const payload = (value: unknown) => ({ payloads: [defaultPayloadConverter.toPayload(value)] });
    const at = { seconds: 1_800_000_000 };
    const answer = { summary: '42', key_findings: [], confidence: 1, limitations: [] };
    const history = History.fromObject({
      events: [
        {
          eventId: 1,
          eventTime: at,
          eventType: EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
          workflowExecutionStartedEventAttributes: { input: payload({ goal: 'What is 6 × 7?' }) },
        },
        {
          eventId: 5,
          eventTime: at,
          eventType: EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
          activityTaskScheduledEventAttributes: {
            activityType: { name: GOAL_TREE_ACTIVITIES.answer },
            input: payload({ goal: 'What is 6 × 7?', action: 'multiply' }),
          },
        },
        {
          eventId: 7,
          eventTime: at,
          eventType: EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
          activityTaskCompletedEventAttributes: {
            scheduledEventId: 5,
            result: payload({ ok: true, value: answer, usage: {} }),
          },
        },
      ],
    });
    const { node } = parseGoalHistory('answer', history);
    expect(node.goal).toBe('What is 6 × 7?');
    expect(node.events.map((event) => [event.eventType, event.data])).toEqual([
      ['started', {}],
      ['executed', { success: true, mode: 'answer' }],
    ]);
  });
});
