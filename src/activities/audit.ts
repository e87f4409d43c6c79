import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { AuditStore } from '../audit/store';
import type { RecordAuditInput, RecordAuditOutput } from '../contract/audit/records';

/**
 * `recordAudit`: writes one record of a run's audit trail to the worker's store, once: a retry, or
 * a replay's second attempt, finds the record by its id and writes nothing. A store that fails (full,
 * unreachable) fails the attempt, which is retried until it succeeds; the run waits for it before it
 * ends, and its pending activity says why. It returns the record as written, with the worker's
 * `webhooks` for the run to send it to (`WAVELOOP_AUDIT_WEBHOOKS`).
 */
export function createRecordAudit({ audit, webhooks }: { audit?: AuditStore; webhooks?: readonly string[] }) {
  return async function recordAudit({ entry }: RecordAuditInput): Promise<RecordAuditOutput> {
    if (!audit)
      throw ApplicationFailure.create({
        type: 'AuditUnavailable',
        message: 'This worker keeps no audit trail; a worker that does will write the record.',
      });
    try {
      const record = await audit.append(entry);
      return { record, ...(webhooks?.length ? { webhooks: [...webhooks] } : {}) };
    } catch (err) {
      const attempt = Context.current().info.attempt;
      throw ApplicationFailure.create({
        type: 'AuditUnavailable',
        message: `The audit store (${audit.where}) did not take record ${entry.id} (attempt ${attempt}): ${err instanceof Error ? err.message : String(err)}`,
      });
    }
  };
}
