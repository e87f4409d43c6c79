import * as path from 'node:path';
import type { WaveloopSettings } from '../settings';
import { PostgresAuditStore } from './postgres-store';
import { SqliteAuditStore } from './sqlite-store';
import type { AuditStore } from './store';

/** The embedded store's file under the data directory. */
export const AUDIT_FILE = 'audit.db';

/**
 * The audit store of the environment: the PostgreSQL database of `WAVELOOP_AUDIT_URL`, else the
 * SQLite file `audit.db` under the data directory. A database that cannot be reached throws, naming
 * it without its password, so a worker or `serve` does not start without its audit trail.
 */
export async function openAuditStore(settings: Pick<WaveloopSettings, 'auditUrl' | 'dataDir'>): Promise<AuditStore> {
  if (!settings.auditUrl) return new SqliteAuditStore(path.join(settings.dataDir, AUDIT_FILE));
  try {
    return await PostgresAuditStore.open(settings.auditUrl);
  } catch (err) {
    const where = settings.auditUrl.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
    throw new Error(
      `The audit store of WAVELOOP_AUDIT_URL (${where}) cannot be reached: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}
