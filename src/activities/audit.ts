import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { AuditStore } from '../audit/store';
import type { RecordAuditInput } from '../contract/audit/records';

/**
 * `recordAudit`: writes one record of a run's audit trail to the worker's store, once: a retry, or
 * a replay's second attempt, finds the record by its id and writes nothing. A store that fails (full,
 * unreachable) fails the attempt, which is retried until it succeeds; the run waits for it before it
 * ends, and its pending activity says why.
 */
export function createRecordAudit({ audit }: { audit?: AuditStore }) {
  return async function recordAudit({ entry }: RecordAuditInput): Promise<{ seq: number }> {
    if (!audit)
      throw ApplicationFailure.create({
        type: 'AuditUnavailable',
        message: 'This worker keeps no audit trail; a worker that does will write the record.',
      });
    try {
      return { seq: (await audit.append(entry)).seq };
    } catch (err) {
      const attempt = Context.current().info.attempt;
      throw ApplicationFailure.create({
        type: 'AuditUnavailable',
        message: `The audit store (${audit.where}) did not take record ${entry.id} (attempt ${attempt}): ${err instanceof Error ? err.message : String(err)}`,
      });
    }
  };
}
