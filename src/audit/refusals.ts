import { randomUUID } from 'node:crypto';
import type { AuditRecord } from '../contract/audit/records';
import type { OutcomeChoice } from '../contract/effects/outcome';
import type { AuditStore } from './store';

/** A decision a run refused to take from someone: who tried what on which call, and why it was refused. */
export interface RefusedDecision {
  workflowId: string;
  callId: string;
  person: string;
  /** An approval's decision, or what was said of a call of unknown outcome. */
  decision: 'approve' | 'deny' | OutcomeChoice;
  why: string;
}

/**
 * Records a refused decision (`decision_refused`) where it was refused: `waveloop serve` and the
 * CLI, which saw the refusal; a run never records one, since a refused update leaves no trace in
 * its history. Each refusal is a record of its own.
 */
export function recordRefusal(store: AuditStore, refused: RefusedDecision): Promise<AuditRecord> {
  const { workflowId, callId, person, decision, why } = refused;
  return store.append({
    id: `${workflowId}/refused/${callId}/${randomUUID()}`,
    kind: 'decision_refused',
    at: new Date().toISOString(),
    workflowId,
    person,
    callId,
    details: { decision, why },
  });
}
