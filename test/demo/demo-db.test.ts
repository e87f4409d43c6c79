import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDemoDatabase } from '../../src/demo/demo-db';
import { makeDemoDeps, type TempDemoDeps } from '../support/tool-context';

const count = (deps: TempDemoDeps, table: string) =>
  (deps.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

describe('openDemoDatabase', () => {
  let deps: TempDemoDeps;
  beforeEach(() => {
    deps = makeDemoDeps();
  });
  afterEach(() => deps.cleanup());

  it('openDemoDatabase: seeds users, rooms and bookings and uses WAL', () => {
    expect(count(deps, 'users')).toBeGreaterThanOrEqual(24);
    expect(count(deps, 'rooms')).toBe(8);
    expect(count(deps, 'bookings')).toBeGreaterThan(0);
    expect(count(deps, 'tool_effects')).toBe(0);
    expect(deps.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(deps.db.pragma('busy_timeout', { simple: true })).toBe(5000);
  });

  it('openDemoDatabase: opening the same file again, even while it is open, does not seed twice', () => {
    const before = ['users', 'rooms', 'bookings'].map((table) => count(deps, table));
    const second = openDemoDatabase(deps.file);
    second.close();
    openDemoDatabase(deps.file).close();
    expect(['users', 'rooms', 'bookings'].map((table) => count(deps, table))).toEqual(before);
  });

  it('openDemoDatabase: seed data is deterministic across files', () => {
    const other = makeDemoDeps();
    try {
      const dump = (d: TempDemoDeps) => d.db.prepare('SELECT * FROM users ORDER BY id').all();
      expect(dump(other)).toEqual(dump(deps));
    } finally {
      other.cleanup();
    }
  });

  it('openDemoDatabase: creates missing parent directories', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-tools-'));
    try {
      const db = openDemoDatabase(path.join(dir, 'nested', 'deeper', 'demo.db'));
      db.close();
      expect(fs.existsSync(path.join(dir, 'nested', 'deeper', 'demo.db'))).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
