/**
 * The audit trail's records (docs/audit.md): what a run and the people around it did, written once
 * each by an activity under a stable id, and chained by hash. No zod here: workflow code imports it.
 */

/**
 * What a record says happened: a run started (who, with what goal and agent), a person decided a
 * call (approve or deny), a decision was refused (who tried, and why), a call that waited for
 * approval ran (its arguments, result or error), a run ended (how), a person undid a run's calls
 * (what was undone, what could not be, what failed).
 */
export type AuditKind = 'run_started' | 'decision' | 'decision_refused' | 'tool_call' | 'run_ended' | 'undo';

/** One record as a run or a person's client makes it, before the store chains it. */
export interface AuditEntry {
  /** Stable across retries and replays: a second write of one id writes nothing. */
  id: string;
  kind: AuditKind;
  /** When it happened (ISO 8601; a run's own time). */
  at: string;
  workflowId: string;
  /** Who: the run's starter, the decider, who tried. */
  person?: string;
  tool?: string;
  callId?: string;
  /** The rest, by kind: goal and agent; approve/deny, reason, arguments; result or error; status. */
  details: Record<string, unknown>;
}

/** A record in the store: its place in the chain, the hash of the one before it, and its own hash. */
export interface AuditRecord extends AuditEntry {
  seq: number;
  prevHash: string;
  hash: string;
}

/** The hash of the chain's first record's predecessor. */
export const AUDIT_GENESIS = '0'.repeat(64);

/** The activity that writes a record (`recordAudit`): its input. */
export interface RecordAuditInput {
  entry: AuditEntry;
}

/** What `recordAudit` returns: the record as written, and where the worker sends a copy of it (`WAVELOOP_AUDIT_WEBHOOKS`). */
export interface RecordAuditOutput {
  record: AuditRecord;
  webhooks?: string[];
}
