import type { Command } from 'commander';
import { verifyChain } from '../../audit/chain';
import { openAuditStore } from '../../audit/open-store';
import type { AuditStore } from '../../audit/store';
import type { AuditRecord } from '../../contract/audit/records';
import { action, note, parseDuration, parsePositiveInt, print, settings } from '../support';
import { alignColumns } from '../ui/table';

/**
 * `waveloop audit`: the audit trail's records (docs/audit.md), from the store workers write
 * (`WAVELOOP_AUDIT_URL`, else `audit.db` under the data directory), read while they write; and
 * `waveloop audit verify`, which checks the hash chain and exits 1 where it breaks.
 */

interface AuditOptions {
  since?: number;
  run?: string;
  person?: string;
  limit?: number;
  json?: boolean;
  csv?: boolean;
}

export function register(program: Command): void {
  const audit = program
    .command('audit')
    .description('list the audit trail: runs started, decisions (and refused ones), approved calls, ends')
    .option('--since <duration>', 'only records of the last 30d, 12h, … (default: all)', parseDuration)
    .option('--run <id>', "only this run's records")
    .option('--person <name>', 'only records by this person')
    .option('--limit <n>', 'the newest n records (default: all)', parsePositiveInt)
    .option('--json', 'print the records as JSON')
    .option('--csv', 'print the records as CSV')
    .action(action((options: AuditOptions) => list(options)));
  audit
    .command('verify')
    .description("check the audit trail's hash chain: exit 1, naming the record, where it breaks")
    .action(action(() => verify()));
}

async function withStore(work: (store: AuditStore) => Promise<number>): Promise<number> {
  const store = await openAuditStore(settings(), note);
  if (!store) return 1;
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

async function list(options: AuditOptions): Promise<number> {
  return withStore(async (store) => {
    const records = await store.list({
      ...(options.since !== undefined ? { since: new Date(Date.now() - options.since) } : {}),
      ...(options.run ? { workflowId: options.run } : {}),
      ...(options.person ? { person: options.person } : {}),
      ...(options.limit ? { limit: options.limit } : {}),
    });
    if (options.json) print(JSON.stringify(records, null, 2));
    else if (options.csv) for (const line of csv(records)) print(line);
    else if (records.length === 0) print(`No audit records (${store.where}).`);
    else {
      const rows = records.map((r) => [String(r.seq), r.at, r.kind, r.person ?? '–', r.workflowId, what(r)]);
      for (const line of alignColumns([['SEQ', 'AT', 'KIND', 'WHO', 'RUN', 'WHAT'], ...rows])) print(line);
    }
    return 0;
  });
}

async function verify(): Promise<number> {
  return withStore(async (store) => {
    const result = await verifyChain(store.all());
    if (result.broken) {
      note(`The audit trail is broken at record ${result.broken.seq} (${result.broken.id}): ${result.broken.problem}.`);
      return 1;
    }
    print(`The audit trail holds: ${result.checked} records chained (${store.where}).`);
    return 0;
  });
}

/** One short line of what a record says. */
function what(record: AuditRecord): string {
  const d = record.details;
  const call = record.tool ? `${record.tool}${record.callId ? ` (${record.callId})` : ''}` : '';
  switch (record.kind) {
    case 'run_started':
      return `started ${String(d.agent ?? '')}: ${String(d.goal ?? '').slice(0, 60)}`;
    case 'decision':
      return `${String(d.decision)} ${call}${d.reason ? `: ${String(d.reason)}` : ''}`;
    case 'decision_refused':
      return `refused to ${String(d.decision)} ${call}: ${String(d.why ?? '')}`;
    case 'tool_call':
      return `${call} ${d.ok ? 'ran' : `failed: ${String(d.error ?? '')}`}`;
    case 'run_ended':
      return `ended ${String(d.status ?? '')}`;
    case 'undo':
      return `undid ${Array.isArray(d.undone) ? d.undone.length : 0} call(s) of ${String(d.run ?? '')}`;
  }
}

const COLUMNS = ['seq', 'at', 'kind', 'person', 'workflowId', 'tool', 'callId', 'details', 'hash'] as const;

function csv(records: readonly AuditRecord[]): string[] {
  const cell = (value: unknown) => {
    const text = value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
    return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [COLUMNS.join(','), ...records.map((r) => COLUMNS.map((c) => cell(r[c])).join(','))];
}
