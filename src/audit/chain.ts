import { createHash } from 'node:crypto';
import { AUDIT_GENESIS, type AuditEntry, type AuditRecord } from '../contract/audit/records';

/**
 * The hash chain of the audit trail: each record's hash covers its content and the hash of the
 * record before it, so editing a record changes its hash, and deleting one leaves its successor
 * pointing at a hash nobody has.
 */

/** The hash of `entry` after the record whose hash is `prevHash`, as `seq` in the chain. */
export function chainHash(seq: number, prevHash: string, entry: AuditEntry): string {
  return createHash('sha256')
    .update(JSON.stringify([seq, prevHash, canonical(entry)]))
    .digest('hex');
}

/** `entry`'s fields in one order, `details` with its keys sorted, so one record hashes one way. */
function canonical(entry: AuditEntry): unknown[] {
  const { id, kind, at, workflowId, person, tool, callId, details } = entry;
  return [id, kind, at, workflowId, person ?? null, tool ?? null, callId ?? null, sorted(details)];
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
  );
}

/** Where the chain breaks: the record, and what is wrong with it. */
export interface ChainBreak {
  seq: number;
  id: string;
  problem: string;
}

/**
 * Checks records in chain order: each follows the one before (no number skipped), points at its
 * hash, and hashes to what it says. The first break, or undefined when the chain holds.
 */
export async function verifyChain(
  records: AsyncIterable<AuditRecord> | Iterable<AuditRecord>,
): Promise<{ checked: number; broken?: ChainBreak }> {
  let prev: AuditRecord | undefined;
  let checked = 0;
  for await (const record of records) {
    const expectedSeq = prev ? prev.seq + 1 : 1;
    const where = { seq: record.seq, id: record.id };
    if (record.seq !== expectedSeq)
      return {
        checked,
        broken: {
          ...where,
          problem:
            record.seq > expectedSeq
              ? `record ${record.seq} follows record ${expectedSeq - 1}: ${record.seq - expectedSeq === 1 ? `record ${expectedSeq} is` : `records ${expectedSeq} to ${record.seq - 1} are`} missing`
              : `record ${record.seq} is out of order`,
        },
      };
    if (record.prevHash !== (prev?.hash ?? AUDIT_GENESIS))
      return {
        checked,
        broken: { ...where, problem: `record ${record.seq} does not point at the hash of record ${expectedSeq - 1}` },
      };
    if (chainHash(record.seq, record.prevHash, record) !== record.hash)
      return {
        checked,
        broken: { ...where, problem: `record ${record.seq} was changed: its content does not match its hash` },
      };
    prev = record;
    checked += 1;
  }
  return { checked };
}
