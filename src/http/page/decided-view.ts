import { html } from 'hono/html';
import type { AuditQuery } from '../../audit/store';
import type { AuditKind, AuditRecord } from '../../contract/audit/records';
import { ago, pretty } from './format';
import type { Html } from './layout';

/**
 * "Decided" (docs/inbox.md#decided): the decisions of the audit trail, newest first, searchable by
 * person, tool and run; and "Recently decided", the newest few under the inbox's waiting list, so a
 * confirmation outlives a refresh. Both read the records the runs wrote (docs/audit.md), never Temporal.
 */

/** How many decisions the page lists: the newest, as it says. */
export const DECIDED_LIMIT = 200;

/** How many the inbox shows under "Recently decided". */
export const RECENT_DECIDED = 5;

/** The kinds of record the view lists: decisions, and the attempts a run refused. */
export const DECIDED_KINDS: readonly AuditKind[] = ['decision', 'decision_refused'];

/** What the view is searched by: the decider, the tool, the run (its workflow id). */
export interface DecidedFilter {
  person?: string;
  tool?: string;
  run?: string;
}

/** The filter of a query's fields, each trimmed; an empty field searches nothing. */
export function decidedFilterOf(query: Partial<Record<keyof DecidedFilter, string | undefined>>): DecidedFilter {
  const filter: DecidedFilter = {};
  for (const field of ['person', 'tool', 'run'] as const) {
    const value = query[field]?.trim();
    if (value) filter[field] = value;
  }
  return filter;
}

/** The store's query for the newest `limit` decisions that `filter` finds. */
export function decidedQuery(filter: DecidedFilter, limit: number): AuditQuery {
  return {
    kind: DECIDED_KINDS,
    limit,
    ...(filter.person ? { person: filter.person } : {}),
    ...(filter.tool ? { tool: filter.tool } : {}),
    ...(filter.run ? { workflowId: filter.run } : {}),
  };
}

/** What the page shows of the records it read: the newest first, or why there are none to show. */
export type DecidedList =
  | { records: readonly AuditRecord[] }
  /** The server has no audit store. */
  | { none: true }
  /** The store could not be read. */
  | { error: string };

/** The page: the search form, then the decisions newest first (`records` as the store lists them, oldest first). */
export function decidedView(list: DecidedList, filter: DecidedFilter, now = new Date()): Html {
  return html`<h1>Decided</h1>
    ${'none' in list ? noTrail() : searchForm(filter)}
    ${'error' in list ? html`<p class="error" role="alert">The audit trail could not be read: ${list.error}</p>` : ''}
    ${'records' in list ? decidedTable(list.records, filter, now) : ''}`;
}

function noTrail(): Html {
  return html`<p class="empty">
    This server keeps no audit trail, so it has no decisions to list. <code>waveloop serve</code> keeps one in the data
    directory (or <code>WAVELOOP_AUDIT_URL</code>'s PostgreSQL).
  </p>`;
}

function searchForm(filter: DecidedFilter): Html {
  const field = (name: keyof DecidedFilter, label: string, placeholder: string) =>
    html`<label
      >${label}
      <input type="search" name="${name}" value="${filter[name] ?? ''}" placeholder="${placeholder}" />
    </label>`;
  const searched = Object.keys(filter).length > 0;
  return html`<form method="get" action="/decided" class="actions search" role="search" aria-label="Search decisions">
    ${field('person', 'Person', 'who decided')} ${field('tool', 'Tool', 'its name')}
    ${field('run', 'Run', 'its workflow id')}
    <button>Search</button>
    ${searched ? html`<a href="/decided">Show all</a>` : ''}
  </form>`;
}

function decidedTable(records: readonly AuditRecord[], filter: DecidedFilter, now: Date): Html {
  const newestFirst = [...records].reverse();
  const searched = [
    filter.person ? `by ${filter.person}` : '',
    filter.tool ? `of ${filter.tool}` : '',
    filter.run ? `in run ${filter.run}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  if (newestFirst.length === 0)
    return html`<p class="empty">No decisions ${searched ? html`${searched} ` : ''}in the audit trail.</p>`;
  return html`<p class="muted">
      ${newestFirst.length} decision${newestFirst.length === 1 ? '' : 's'}${searched ? html` ${searched}` : ''}, newest
      first. The page lists the newest ${DECIDED_LIMIT}: search to narrow it, or list them all with
      <code>waveloop audit</code>.
    </p>
    <table class="decided">
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Who</th>
          <th scope="col">Decision</th>
          <th scope="col">Tool and arguments</th>
          <th scope="col">Reason</th>
          <th scope="col">Run</th>
        </tr>
      </thead>
      <tbody>
        ${newestFirst.map((record) => decidedRow(record, now))}
      </tbody>
    </table>`;
}

/** One record's row: refused attempts marked refused, with why. */
function decidedRow(record: AuditRecord, now: Date): Html {
  const d = readDetails(record);
  return html`<tr class="decided-record ${d.refused ? 'refused' : d.decision}" data-kind="${record.kind}">
    <td>${when(record.at, now)}</td>
    <td class="who">${record.person ?? ''}</td>
    <td>${verdict(record)}</td>
    <td>
      ${record.tool ? html`<code>${record.tool}</code>` : ''}
      ${
        d.args === undefined
          ? ''
          : html`<pre class="args" aria-label="Arguments">${pretty(d.args)}</pre>
              ${
                d.originalArgs === undefined
                  ? ''
                  : html`<details class="original">
                      <summary>The model's arguments</summary>
                      <pre class="original-args">${pretty(d.originalArgs)}</pre>
                    </details>`
              }`
      }
    </td>
    <td>
      ${d.why ? html`<div class="error">${d.why}</div>` : ''} ${d.reason ? html`<div>${d.reason}</div>` : ''}
      ${d.ruleReason ? html`<div class="muted">rule: ${d.ruleReason}</div>` : ''}
      ${d.approvers ? html`<div class="muted">needs ${d.approvers}</div>` : ''}
    </td>
    <td><a href="/runs/${encodeURIComponent(record.workflowId)}">${record.workflowId}</a></td>
  </tr>`;
}

/** "approved", "denied", "approved (2 of 2)", "approved with edited arguments", "refused: approve". */
function verdict(record: AuditRecord): Html {
  const d = readDetails(record);
  if (d.refused)
    return html`<span class="verdict refused">refused</span> <span class="muted">(tried to ${d.decision})</span>`;
  const word = d.decision === 'approve' ? 'approved' : d.decision === 'deny' ? 'denied' : d.decision;
  const quorum = d.quorum !== undefined && d.quorum > 1 ? `${d.approvals ?? 0} of ${d.quorum}` : '';
  return html`<span class="verdict ${d.decision}">${word}</span
    >${d.edited ? html` <span class="badge">edited</span>` : ''}${
      d.deadline ? html` <span class="muted">by its deadline</span>` : ''
    }${quorum ? html` <span class="quorum">${quorum}</span>` : ''}`;
}

/** `at` as a time a person reads (UTC, to the second), and how long ago. */
function when(at: string, now: Date): Html {
  const valid = !Number.isNaN(Date.parse(at));
  const shown = valid ? `${new Date(at).toISOString().slice(0, 19).replace('T', ' ')} UTC` : at;
  return html`<time datetime="${at}">${shown}</time>${valid ? html`<div class="muted">${ago(at, now)} ago</div>` : ''}`;
}

/** A decision record's details, read as the runs and `serve` write them (docs/audit.md). */
interface DecisionDetails {
  refused: boolean;
  decision: string;
  args?: unknown;
  originalArgs?: unknown;
  edited: boolean;
  reason?: string;
  why?: string;
  ruleReason?: string;
  approvers?: string;
  approvals?: number;
  quorum?: number;
  deadline: boolean;
}

function readDetails(record: AuditRecord): DecisionDetails {
  const details = record.details;
  const text = (key: string) => (typeof details[key] === 'string' ? (details[key] as string) : undefined);
  const count = (key: string) => (typeof details[key] === 'number' ? (details[key] as number) : undefined);
  return {
    refused: record.kind === 'decision_refused',
    decision: text('decision') ?? 'decided',
    args: details.args,
    originalArgs: details.originalArgs,
    edited: details.edited === true,
    reason: text('reason'),
    why: text('why'),
    ruleReason: text('ruleReason'),
    approvers: text('approvers'),
    approvals: count('approvals'),
    quorum: count('quorum'),
    deadline: details.deadline === true,
  };
}

/**
 * "Recently decided", under the inbox's waiting list: the newest few decisions, each in a line, and
 * the way to the rest. Nothing without an audit store.
 */
export function recentDecided(list: DecidedList, now = new Date()): Html | string {
  if ('none' in list) return '';
  return html`<section id="recently-decided" aria-labelledby="recently-decided-title">
    <h2 id="recently-decided-title">Recently decided</h2>
    ${'error' in list ? html`<p class="error" role="alert">The audit trail could not be read: ${list.error}</p>` : ''}
    ${
      'records' in list && list.records.length === 0
        ? html`<p class="empty">Nothing decided yet.</p>`
        : 'records' in list
          ? html`<ul class="recent">
              ${[...list.records].reverse().map(
                (record) =>
                  html`<li class="decided-record">
                    ${verdict(record)} ${record.tool ? html`<code>${record.tool}</code>` : ''} by
                    <span class="who">${record.person ?? ''}</span>, ${ago(record.at, now)} ago ·
                    <a href="/runs/${encodeURIComponent(record.workflowId)}">${record.workflowId}</a>
                  </li>`,
              )}
            </ul>`
          : ''
    }
    <p><a href="/decided">Every decision</a></p>
  </section>`;
}
