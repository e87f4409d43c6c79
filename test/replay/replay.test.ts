import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Worker } from '@temporalio/worker';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { waveloopDataConverter } from '../../src/common/payload-codec';
import { HISTORIES_DIR } from '../support/history';
import { workflowBundle } from '../support/harness';

/**
 * Determinism guard: histories recorded from real runs (by `npm run test:record`) must replay
 * against the current workflow code. A change that would break runs in flight fails here; guard
 * it with `patched()` or worker versioning, then record again.
 */
const files = fs.existsSync(HISTORIES_DIR) ? fs.readdirSync(HISTORIES_DIR).filter((f) => f.endsWith('.json')).sort() : [];

describe('replay', () => {
  it('has recorded histories to replay', () => {
    expect(files.length).toBeGreaterThanOrEqual(4);
  });

  it.each(files)('replay: %s replays deterministically against the current workflow code', async (file) => {
    const history = historyFromJSON(JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8')));
    const results = Worker.runReplayHistories({ workflowBundle: await workflowBundle(), dataConverter: waveloopDataConverter() }, [
      // A history's file is named by its workflow id (which a goal tree's child ids derive from), with
      // `@<what it shows>` when another file has that id already.
      { workflowId: path.basename(file, '.json').split('@')[0], history },
    ]);
    for await (const result of results) {
      expect(result.error).toBeUndefined();
    }
  });
});

/**
 * A run's history must replay however far apart its workflow tasks are said to have started: the
 * workflow clock (`Date.now()`) must not decide what the run does where it need not. Each workflow
 * task's start is moved 11 s later than the one before (past `SEARCH_ATTRIBUTE_REFRESH_MS`), and the
 * run must still replay. Runs recorded before 'clock-from-history' decided their upserts
 * by that clock, and the same move breaks them (the crash matrix once saw a worker that took such a
 * run over decide otherwise, and fail its workflow task as nondeterministic).
 */
describe('replay: workflow clock', () => {
  const spread = (file: string) => {
    const json = JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8')) as { events: { eventType: string; eventTime: string }[] };
    const first = Date.parse(json.events[0].eventTime);
    let task = 0;
    for (const event of json.events) {
      if (event.eventType === 'EVENT_TYPE_WORKFLOW_TASK_STARTED') task += 1;
      event.eventTime = new Date(first + task * 11_000 + (Date.parse(event.eventTime) - first) / 1000).toISOString();
    }
    return historyFromJSON(json);
  };
  const replayError = async (file: string) => {
    const results = Worker.runReplayHistories({ workflowBundle: await workflowBundle(), dataConverter: waveloopDataConverter() }, [
      { workflowId: file.replace(/(@.*)?\.json$/, ''), history: spread(file) },
    ]);
    for await (const result of results) return result.error;
  };

  it.each(['find-bob-approved-clock-from-history.json', 'deadline-timer.json', 'goal-time-limit.json', 'goal-time-limit-child.json'])(
    'replay: %s replays the same when its workflow tasks are said to be far apart',
    async (file) => {
      expect(await replayError(file)).toBeUndefined();
    },
  );

  it('replay: a run recorded before the change could not (it decided its upserts by the workflow clock)', async () => {
    expect(String(await replayError('find-bob-validated-in-resolve.json'))).toMatch(/Nondeterminism|nondetermin/i);
  });
});
