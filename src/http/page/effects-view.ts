import { html } from 'hono/html';
import type { EffectEntry } from '../../client/effects';
import type { PendingDecision } from '../../client/pending';
import { clip } from './format';
import type { Html } from './layout';

/**
 * "What this run changed", a section of a run's page: the run's effect ledger
 * (docs/effects.md#the-effect-ledger), one row per call of a tool that is not `read` that ran, with
 * its effect, arguments (sensitive values masked), result or error, who approved it, how a call
 * whose attempt may have acted was settled, and which undo reversed it. A run that has ended with
 * calls left to undo gets an "Undo this run" button (`POST /runs/{id}/undo`): the undo runs as the
 * signed-in person's, and its approvals wait in the inbox.
 */

/** The longest arguments or result a row shows in full; `/api/runs/{id}/effects` has all of it. */
const CELL_CHARS = 600;

/**
 * The run's effects as `runEffects` read them: the calls, or why they could not be read; and the undo
 * of the run that is running, when one is, with the approvals it waits for (the page shows their cards).
 */
export interface EffectsRead {
  effects: EffectEntry[];
  unread?: string;
  undo?: { undoId: string; pending: PendingDecision[] };
}

/**
 * The section: a heading, then the calls (or that there is none yet, or why they could not be read),
 * and, for a run that has `ended`, the undo button while a call that succeeded is left to undo.
 */
export function effectsSection(workflowId: string, read: EffectsRead, ended = false): Html {
  const json = html`<a href="/api/runs/${encodeURIComponent(workflowId)}/effects">JSON</a>`;
  const left = read.effects.filter((entry) => entry.ok && entry.undoable && !entry.undone);
  return html`<section class="effects" data-effects="${read.effects.length}">
    <h2>What this run changed</h2>
    ${
      read.unread
        ? html`<p class="empty">Its calls could not be read: ${read.unread}.</p>`
        : read.effects.length === 0
          ? html`<p class="empty">No call of a tool that changes something has run.</p>`
          : html`<p class="muted">
                Each call of a tool that is not read-only that ran, successful or not (a call that failed may have
                changed something before it failed) · ${json}
              </p>
              <table>
                <thead>
                  <tr>
                    <th>Iteration</th>
                    <th>Tool</th>
                    <th>Effect</th>
                    <th>Arguments</th>
                    <th>Result</th>
                    <th>Approved by</th>
                    <th>Undone</th>
                  </tr>
                </thead>
                <tbody>
                  ${read.effects.map(effectRow)}
                </tbody>
              </table>
              ${
                read.undo
                  ? html`<p class="undo-running muted" data-undo="${read.undo.undoId}">
                      An undo of this run is running
                      (${read.undo.undoId})${
                        read.undo.pending.length ? ': its approvals wait above and in the inbox' : ''
                      }.
                    </p>`
                  : ended && left.length
                    ? undoForm(workflowId, left.length)
                    : ''
              }`
    }
  </section>`;
}

/** "Undo this run": starts the run's undo as the signed-in person's; the answer replaces the form. */
function undoForm(workflowId: string, calls: number): Html {
  return html`<form
    class="undo actions"
    hx-post="/runs/${encodeURIComponent(workflowId)}/undo"
    hx-swap="outerHTML"
    hx-target="this"
  >
    <button type="submit" class="danger">Undo this run</button>
    <span class="muted"
      >${calls} call${calls === 1 ? '' : 's'} to undo, later first, each by its tool's undo; an undo of a call that
      waited for approval waits for approval too, in the inbox</span
    >
  </form>`;
}

/** What replaced the undo button: the undo started (and where its approvals wait), or why not. */
export function undoStarted(workflowId: string, undoId: string, by: string): Html {
  return html`<p class="undo-started done" data-undo="${undoId}">
    Undo started by ${by} (${undoId}). Calls whose undo waits for approval are in the <a href="/">inbox</a>; this page
    shows each call undone once it is (<a href="/runs/${encodeURIComponent(workflowId)}">reload</a>).
  </p>`;
}

function effectRow(entry: EffectEntry): Html {
  return html`<tr class="effect ${entry.ok ? 'ok' : 'failed'}" data-call="${entry.callId}">
    <td>${entry.iteration}</td>
    <td><strong>${entry.tool}</strong></td>
    <td><span class="badge">${entry.effect}</span></td>
    <td><code>${clip(JSON.stringify(entry.args), CELL_CHARS)}</code></td>
    <td>
      ${entry.ok ? clip(entry.result ?? '', CELL_CHARS) : html`<span class="error">failed: ${clip(entry.error ?? '', CELL_CHARS)}</span>`}
      ${entry.outcome ? html`<div class="muted">its attempt may have acted: ${entry.outcome.path.replace('_', ' ')} (${entry.outcome.by})</div>` : ''}
    </td>
    <td>${entry.approvedBy?.join(', ') ?? html`<span class="muted">did not wait</span>`}</td>
    <td class="undone">${undoneCell(entry)}</td>
  </tr>`;
}

/** Whether the call was undone, by whom (who asked; who approved, when its undo waited), or that it cannot be. */
function undoneCell({ undone, undoable, ok }: EffectEntry): Html | string {
  if (undone)
    return html`undone by
    ${undone.by}${undone.approvedBy?.length ? `, approved by ${undone.approvedBy.join(', ')}` : ''}`;
  if (!ok) return '';
  return undoable ? html`<span class="muted">no</span>` : html`<span class="muted">no undo</span>`;
}
