import * as fs from 'node:fs';
import * as path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
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

describe('replay', () => {
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
    const history = historyFromJSON(JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8')));
    const results = Worker.runReplayHistories(
      { workflowBundle: await workflowBundle(), dataConverter: waveloopDataConverter() },
      [
        // A history's file is named by its workflow id (which a goal tree's child ids derive from), with
        // `@<what it shows>` when another file has that id already (`replayWorkflowId`).
        { workflowId: replayWorkflowId(file), history },
      ],
    );
    for await (const result of results) {
      expect(result.error).toBeUndefined();
    }
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
  const replayError = async (file: string) => {
    const results = Worker.runReplayHistories(
      { workflowBundle: await workflowBundle(), dataConverter: waveloopDataConverter() },
      [{ workflowId: replayWorkflowId(file), history: spread(file) }],
    );
    for await (const result of results) return result.error;
  };

  it.each(['find-bob-approved.json', 'deadline.json', 'goal-time-limit.json', 'goal-time-limit-child.json'])(
    'replay: %s replays the same when its workflow tasks are said to be far apart',
    async (file) => {
      expect(await replayError(file)).toBeUndefined();
    },
  );
});
