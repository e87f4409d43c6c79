import type { Pool, PoolClient } from 'pg';
import { AUDIT_GENESIS, type AuditEntry, type AuditRecord } from '../contract/audit/records';
import { chainHash } from './chain';
import type { AuditQuery, AuditStore } from './store';

/** The table of the audit trail in a team's PostgreSQL (docs/audit.md shows it). */
export const AUDIT_TABLE_SQL = `CREATE TABLE IF NOT EXISTS waveloop_audit_records (
  seq BIGINT PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  at TIMESTAMPTZ NOT NULL,
  workflow_id TEXT NOT NULL,
  person TEXT,
  tool TEXT,
  call_id TEXT,
  details JSONB NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
)`;

/** The advisory lock every append takes, so writers chain in one order. */
const CHAIN_LOCK = 7_263_511;

/**
 * The audit trail in a team's PostgreSQL (`WAVELOOP_AUDIT_URL=postgres://…`): one table, appended
 * in transactions that take one advisory lock, so every worker's records chain in one order; read
 * by `waveloop audit` and `waveloop serve` while workers write.
 */
export class PostgresAuditStore implements AuditStore {
  private constructor(
    private readonly pool: Pool,
    readonly where: string,
  ) {}

  /** Connects and makes the table when it is missing; throws when the database cannot be reached. */
  static async open(url: string): Promise<PostgresAuditStore> {
    const { Pool } = await import('pg');
    const pool = new Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 10_000 });
    try {
      await pool.query(AUDIT_TABLE_SQL);
    } catch (err) {
      await pool.end();
      throw err;
    }
    return new PostgresAuditStore(pool, withoutPassword(url));
  }

  async append(entry: AuditEntry): Promise<AuditRecord> {
    return this.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [CHAIN_LOCK]);
      const existing = await client.query<Row>('SELECT * FROM waveloop_audit_records WHERE id = $1', [entry.id]);
      if (existing.rows[0]) return recordOf(existing.rows[0]);
      const last = await client.query<{ seq: string; hash: string }>(
        'SELECT seq, hash FROM waveloop_audit_records ORDER BY seq DESC LIMIT 1',
      );
      const seq = Number(last.rows[0]?.seq ?? 0) + 1;
      const prevHash = last.rows[0]?.hash ?? AUDIT_GENESIS;
      const record: AuditRecord = { ...entry, seq, prevHash, hash: chainHash(seq, prevHash, entry) };
      await client.query(
        `INSERT INTO waveloop_audit_records (seq, id, kind, at, workflow_id, person, tool, call_id, details, prev_hash, hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          seq,
          record.id,
          record.kind,
          record.at,
          record.workflowId,
          record.person ?? null,
          record.tool ?? null,
          record.callId ?? null,
          JSON.stringify(record.details),
          prevHash,
          record.hash,
        ],
      );
      return record;
    });
  }

  async list(query: AuditQuery = {}): Promise<AuditRecord[]> {
    const clauses: string[] = [];
    const params: unknown[] = [];
    const add = (clause: (n: string) => string, value: unknown) => {
      params.push(value);
      clauses.push(clause(`$${params.length}`));
    };
    if (query.since) add((n) => `at >= ${n}`, query.since.toISOString());
    if (query.workflowId) add((n) => `workflow_id = ${n}`, query.workflowId);
    if (query.person) add((n) => `person = ${n}`, query.person);
    if (query.tool) add((n) => `tool = ${n}`, query.tool);
    const kinds = query.kind === undefined ? [] : typeof query.kind === 'string' ? [query.kind] : [...query.kind];
    if (kinds.length) add((n) => `kind = ANY(${n})`, kinds);
    const where = clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
    const limit = query.limit ? `LIMIT ${Math.floor(query.limit)}` : '';
    const newest = await this.pool.query<Row>(
      `SELECT * FROM waveloop_audit_records ${where} ORDER BY seq DESC ${limit}`,
      params,
    );
    return newest.rows.reverse().map(recordOf);
  }

  async *all(): AsyncIterable<AuditRecord> {
    const page = 1000;
    for (let after = 0; ;) {
      const rows = await this.pool.query<Row>(
        'SELECT * FROM waveloop_audit_records WHERE seq > $1 ORDER BY seq LIMIT $2',
        [after, page],
      );
      for (const row of rows.rows) yield recordOf(row);
      if (rows.rows.length < page) return;
      after = Number(rows.rows.at(-1)!.seq);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}

interface Row {
  seq: string;
  id: string;
  kind: AuditRecord['kind'];
  at: Date;
  workflow_id: string;
  person: string | null;
  tool: string | null;
  call_id: string | null;
  details: Record<string, unknown>;
  prev_hash: string;
  hash: string;
}

function recordOf(row: Row): AuditRecord {
  return {
    seq: Number(row.seq),
    id: row.id,
    kind: row.kind,
    at: row.at.toISOString(),
    workflowId: row.workflow_id,
    ...(row.person !== null ? { person: row.person } : {}),
    ...(row.tool !== null ? { tool: row.tool } : {}),
    ...(row.call_id !== null ? { callId: row.call_id } : {}),
    details: row.details,
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

/** The URL without its password, for messages. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the database of WAVELOOP_AUDIT_URL';
  }
}
