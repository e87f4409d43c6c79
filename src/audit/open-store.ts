import * as path from 'node:path';
import type { WaveloopSettings } from '../settings';
import { PostgresAuditStore, withoutPassword } from './postgres-store';
import { SqliteAuditStore, SqliteUnavailableError } from './sqlite-store';
import type { AuditStore } from './store';

/** The embedded store's file under the data directory. */
export const AUDIT_FILE = 'audit.db';

/**
 * The audit store of the environment: the PostgreSQL database of `WAVELOOP_AUDIT_URL`, else the
 * SQLite file `audit.db` under the data directory. A database that cannot be reached throws, naming
 * it without its password, so a worker or `serve` does not start without its audit trail. Where
 * better-sqlite3 (an optional dependency) was not built, as when install scripts are blocked, there
 * is no embedded store: undefined, and `warn` says so and how to get one.
 */
export async function openAuditStore(
  settings: Pick<WaveloopSettings, 'auditUrl' | 'dataDir'>,
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<AuditStore | undefined> {
  if (!settings.auditUrl) {
    try {
      return new SqliteAuditStore(path.join(settings.dataDir, AUDIT_FILE));
    } catch (err) {
      if (!(err instanceof SqliteUnavailableError)) throw err;
      warn(
        `No audit trail: ${err.message}. Rebuild it (npm rebuild better-sqlite3) or set WAVELOOP_AUDIT_URL to a PostgreSQL database (docs/audit.md).`,
      );
      return undefined;
    }
  }
  try {
    return await PostgresAuditStore.open(settings.auditUrl);
  } catch (err) {
    throw new Error(
      `The audit store of WAVELOOP_AUDIT_URL (${withoutPassword(settings.auditUrl)}) cannot be reached: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}
