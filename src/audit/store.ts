import type { AuditEntry, AuditKind, AuditRecord } from '../contract/audit/records';

/** Which records `list` returns. */
export interface AuditQuery {
  /** Only records at or after this time. */
  since?: Date;
  /** Only this run's (its workflow id). */
  workflowId?: string;
  /** Only records by this person. */
  person?: string;
  kind?: AuditKind | readonly AuditKind[];
  /** Only records of this tool. */
  tool?: string;
  /** The newest this many (still listed oldest first). */
  limit?: number;
}

/**
 * Where audit records are kept: appended once each (a second append of an id returns the record
 * the first one wrote) and chained by hash, in one order for every writer.
 */
export interface AuditStore {
  /** Where it is, for messages: a file, or the database without its password. */
  readonly where: string;
  /** Appends `entry` unless a record with its id is there; returns the record, new or old. */
  append(entry: AuditEntry): Promise<AuditRecord>;
  /** The records `query` asks for, in chain order. */
  list(query?: AuditQuery): Promise<AuditRecord[]>;
  /** Every record in chain order, for `verify`. */
  all(): AsyncIterable<AuditRecord>;
  close(): Promise<void>;
}
