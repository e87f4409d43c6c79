import { html } from 'hono/html';
import type { EffectEntry } from '../../client/effects';
import { clip } from './format';
import type { Html } from './layout';

/**
 * "What this run changed", a section of a run's page: the run's effect ledger
 * (docs/effects.md#the-effect-ledger), one row per call of a tool that is not `read` that ran, with
 * its effect, arguments (sensitive values masked), result or error, who approved it and how a call
 * whose attempt may have acted was settled.
 */

/** The longest arguments or result a row shows in full; `/api/runs/{id}/effects` has all of it. */
const CELL_CHARS = 600;

/** The run's effects as `runEffects` read them: the calls, or why they could not be read. */
export interface EffectsRead {
  effects: EffectEntry[];
  unread?: string;
}

/** The section: a heading, then the calls (or that there is none yet, or why they could not be read). */
export function effectsSection(workflowId: string, read: EffectsRead): Html {
  const json = html`<a href="/api/runs/${encodeURIComponent(workflowId)}/effects">JSON</a>`;
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
                  </tr>
                </thead>
                <tbody>
                  ${read.effects.map(effectRow)}
                </tbody>
              </table>`
    }
  </section>`;
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
  </tr>`;
}
