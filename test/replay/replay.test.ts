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
      { workflowId: path.basename(file, '.json'), history },
    ]);
    for await (const result of results) {
      expect(result.error).toBeUndefined();
    }
  });
});
