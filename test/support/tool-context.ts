import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { z } from 'zod';
import { openDemoDatabase, type DemoDeps } from '../../src/demo/demo-db';
import type { ToolContext, ToolDefinition } from '../../src/tools/define';

/** A `ToolContext` for calling `tool.execute` directly: live signal, no-op heartbeat, key `wf-test/call-1`. */
export function makeToolContext(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    signal: new AbortController().signal,
    heartbeat: () => {},
    idempotencyKey: 'wf-test/call-1',
    workflowId: 'wf-test',
    toolCallId: 'call-1',
    startedBy: 'alice',
    ...overrides,
  };
}

/**
 * Runs a tool the way the activity does, `tool.execute(tool.parameters.parse(args), context)`, always
 * as a promise: a validation error or a throw from `execute` becomes a rejection.
 */
export async function callTool<P extends z.ZodObject, R>(
  tool: ToolDefinition<P, R>,
  args: unknown,
  context: ToolContext = makeToolContext(),
): Promise<R> {
  return tool.execute(tool.parameters.parse(args), context);
}

/** 2026-11-22T10:00:00Z, a Sunday: the fixed "now" of the tool tests. */
export const FIXED_NOW = new Date('2026-11-22T10:00:00Z');

export interface TempDemoDeps extends DemoDeps {
  /** The database file (in a fresh temp dir). */
  file: string;
  /** Closes the database and deletes the temp dir. */
  cleanup(): void;
}

/** Demo deps over a freshly seeded database in a new temp dir, with a clock fixed at `now`. */
export function makeDemoDeps(now: Date = FIXED_NOW): TempDemoDeps {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-tools-'));
  const file = path.join(dir, 'demo.db');
  const db = openDemoDatabase(file);
  return {
    db,
    now: () => new Date(now),
    file,
    cleanup: () => {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
