import * as fs from 'node:fs';
import * as path from 'node:path';
import { historyFromJSON, type History } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { waveloopDataConverter } from '../../src/payloads/data-converter';
import { workflowBundle } from '../support/harness';
import { HISTORIES_DIR, replayWorkflowId } from '../support/history';

/**
 * Determinism guard: histories recorded from real runs (by `npm run test:record`), one per
 * scenario, must replay against the current workflow code. Until the first release a change that
 * replays differently re-records them; from then on it ships with `patched()` or a new Worker
 * Deployment version, and the histories of the old code stay (docs/development.md).
 */
const files = fs.existsSync(HISTORIES_DIR)
  ? fs
      .readdirSync(HISTORIES_DIR)
      .filter((f) => f.endsWith('.json'))
      .sort()
  : [];

/**
 * Replays `histories` (by file name) in one replay worker (a worker's start costs a quarter of a second
 * of CPU), one after another; resolves each file's replay error, or `undefined` for a file that
 * replayed.
 */
async function replayAll(histories: Array<[file: string, history: History]>): Promise<Record<string, unknown>> {
  const results = Worker.runReplayHistories(
    { workflowBundle: await workflowBundle(), dataConverter: waveloopDataConverter() },
    // A history's file is named by its workflow id (which a goal tree's child ids derive from), with
    // `@<what it shows>` when another file has that id already (`replayWorkflowId`).
    histories.map(([file, history]) => ({ workflowId: replayWorkflowId(file), history })),
  );
  const errors: Record<string, unknown> = {};
  let i = 0;
  // The results come in the order of the histories.
  for await (const result of results) {
    const [file] = histories[i++];
    expect(result.workflowId).toBe(replayWorkflowId(file));
    errors[file] = result.error;
  }
  expect(i).toBe(histories.length);
  return errors;
}

describe('replay', () => {
  let replayed: Promise<Record<string, unknown>>;
  beforeAll(() => {
    replayed = replayAll(
      files.map((file) => [file, historyFromJSON(JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8')))]),
    );
    // Each test awaits it; a failure here is each test's own.
    replayed.catch(() => undefined);
  });

  it('has recorded histories to replay', () => {
    expect(files.length).toBeGreaterThanOrEqual(4);
  });

  it("replay: a new run's history has no patch markers (the workflow code has no patched() before the first release)", () => {
    const marked = files.filter((file) =>
      fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8').includes('core_patch'),
    );
    expect(marked).toEqual([]);
  });

  it.each(files)('replay: %s replays deterministically against the current workflow code', async (file) => {
    expect((await replayed)[file]).toBeUndefined();
  });
});

/**
 * A run's history must replay however far apart its workflow tasks are said to have started: no
 * workflow decision may read the workflow clock (`Date.now()`), or a worker that takes a run over
 * could decide otherwise and fail the run's workflow task as nondeterministic. Each workflow task's
 * start is moved 11 s later than the one before (past `SEARCH_ATTRIBUTE_REFRESH_MS`).
 */
describe('replay: workflow clock', () => {
  const spread = (file: string) => {
    const json = JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8')) as {
      events: { eventType: string; eventTime: string }[];
    };
    const first = Date.parse(json.events[0].eventTime);
    let task = 0;
    for (const event of json.events) {
      if (event.eventType === 'EVENT_TYPE_WORKFLOW_TASK_STARTED') task += 1;
      event.eventTime = new Date(first + task * 11_000 + (Date.parse(event.eventTime) - first) / 1000).toISOString();
    }
    return historyFromJSON(json);
  };
  const FILES = ['find-bob-approved.json', 'deadline.json', 'goal-time-limit.json', 'goal-time-limit-child.json'];
  let replayed: Promise<Record<string, unknown>>;
  beforeAll(() => {
    replayed = replayAll(FILES.map((file) => [file, spread(file)]));
    replayed.catch(() => undefined);
  });

  it.each(FILES)('replay: %s replays the same when its workflow tasks are said to be far apart', async (file) => {
    expect((await replayed)[file]).toBeUndefined();
  });
});
