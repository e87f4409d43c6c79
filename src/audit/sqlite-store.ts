import * as fs from 'node:fs';
import * as path from 'node:path';
import type Database from 'better-sqlite3';
import { AUDIT_GENESIS, type AuditEntry, type AuditRecord } from '../contract/audit/records';
import { chainHash } from './chain';
import type { AuditQuery, AuditStore } from './store';

/**
 * The embedded audit store: a SQLite file under the data directory (`audit.db`), in WAL mode, so
 * workers append while `waveloop audit` and `waveloop serve` read, each in its own process. An
 * append is one `BEGIN IMMEDIATE` transaction: it reads the chain's last record and writes the next,
 * so concurrent writers chain in one order.
 */
export class SqliteAuditStore implements AuditStore {
  private readonly db: Database.Database;

  /** Throws `SqliteUnavailableError` when better-sqlite3 (an optional dependency) is not built here. */
  constructor(readonly where: string) {
    const Sqlite = loadSqlite();
    fs.mkdirSync(path.dirname(where), { recursive: true });
    try {
      this.db = new Sqlite(where);
    } catch (err) {
      // Its native module is loaded with the first database: not built (install scripts blocked), or for another Node.
      const message = err instanceof Error ? err.message : String(err);
      if (/bindings file|ERR_DLOPEN_FAILED|NODE_MODULE_VERSION/.test(`${message} ${(err as { code?: string }).code}`))
        throw new SqliteUnavailableError(
          `better-sqlite3, an optional dependency, is not built here (${message.split('\n')[0]})`,
        );
      throw err;
    }
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 10000');
    this.db.exec(`CREATE TABLE IF NOT EXISTS audit_records (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      kind TEXT NOT NULL,
      at TEXT NOT NULL,
      workflow_id TEXT NOT NULL,
      person TEXT,
      tool TEXT,
      call_id TEXT,
      details TEXT NOT NULL,
      prev_hash TEXT NOT NULL,
      hash TEXT NOT NULL
    )`);
  }

  async append(entry: AuditEntry): Promise<AuditRecord> {
    const write = this.db.transaction((): AuditRecord => {
      const existing = this.db.prepare('SELECT * FROM audit_records WHERE id = ?').get(entry.id) as Row | undefined;
      if (existing) return recordOf(existing);
      const last = this.db.prepare('SELECT seq, hash FROM audit_records ORDER BY seq DESC LIMIT 1').get() as
        { seq: number; hash: string } | undefined;
      const seq = (last?.seq ?? 0) + 1;
      const prevHash = last?.hash ?? AUDIT_GENESIS;
      const record: AuditRecord = { ...entry, seq, prevHash, hash: chainHash(seq, prevHash, entry) };
      this.db
        .prepare(
          `INSERT INTO audit_records (seq, id, kind, at, workflow_id, person, tool, call_id, details, prev_hash, hash)
           VALUES (@seq, @id, @kind, @at, @workflowId, @person, @tool, @callId, @details, @prevHash, @hash)`,
        )
        .run({
          ...record,
          person: record.person ?? null,
          tool: record.tool ?? null,
          callId: record.callId ?? null,
          details: JSON.stringify(record.details),
        });
      return record;
    });
    return write.immediate();
  }

  async list(query: AuditQuery = {}): Promise<AuditRecord[]> {
    const { where, params } = conditions(query);
    const newest = this.db
      .prepare(`SELECT * FROM audit_records ${where} ORDER BY seq DESC ${query.limit ? 'LIMIT @limit' : ''}`)
      .all({ ...params, ...(query.limit ? { limit: query.limit } : {}) }) as Row[];
    return newest.reverse().map(recordOf);
  }

  async *all(): AsyncIterable<AuditRecord> {
    for (const row of this.db.prepare('SELECT * FROM audit_records ORDER BY seq').iterate() as Iterable<Row>)
      yield recordOf(row);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

/** better-sqlite3, an optional dependency with a native module, is not usable here. */
export class SqliteUnavailableError extends Error {
  override name = 'SqliteUnavailableError';
}

function loadSqlite(): typeof Database {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- without it waveloop works, with another audit store or none
    return require('better-sqlite3') as typeof Database;
  } catch (err) {
    throw new SqliteUnavailableError(
      `better-sqlite3, an optional dependency, is not usable here (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`,
    );
  }
}

interface Row {
  seq: number;
  id: string;
  kind: AuditRecord['kind'];
  at: string;
  workflow_id: string;
  person: string | null;
  tool: string | null;
  call_id: string | null;
  details: string;
  prev_hash: string;
  hash: string;
}

function recordOf(row: Row): AuditRecord {
  return {
    seq: row.seq,
    id: row.id,
    kind: row.kind,
    at: row.at,
    workflowId: row.workflow_id,
    ...(row.person !== null ? { person: row.person } : {}),
    ...(row.tool !== null ? { tool: row.tool } : {}),
    ...(row.call_id !== null ? { callId: row.call_id } : {}),
    details: JSON.parse(row.details) as Record<string, unknown>,
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

function conditions(query: AuditQuery): { where: string; params: Record<string, unknown> } {
  const clauses: string[] = [];
  const params: Record<string, unknown> = {};
  if (query.since) {
    clauses.push('at >= @since');
    params.since = query.since.toISOString();
  }
  if (query.workflowId) {
    clauses.push('workflow_id = @workflowId');
    params.workflowId = query.workflowId;
  }
  if (query.person) {
    clauses.push('person = @person');
    params.person = query.person;
  }
  if (query.tool) {
    clauses.push('tool = @tool');
    params.tool = query.tool;
  }
  const kinds = query.kind === undefined ? [] : typeof query.kind === 'string' ? [query.kind] : [...query.kind];
  if (kinds.length) {
    clauses.push(`kind IN (${kinds.map((_, i) => `@kind${i}`).join(', ')})`);
    kinds.forEach((kind, i) => (params[`kind${i}`] = kind));
  }
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}
