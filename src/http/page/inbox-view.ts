import { createHash } from 'node:crypto';
import { html, raw } from 'hono/html';
import type { PendingList } from '../../client/pending';
import type { Person } from '../../contract/people/people';
import { decisionCard } from './decision-view';
import type { Html } from './layout';

/**
 * "Waiting now": every decision waiting for a person, newest first. The section asks the server
 * every few seconds whether the list changed (`version`); the server answers 204 while it has not,
 * so a person's typing is never swept away by a refresh that changes nothing.
 */

/** How often the page asks whether the list changed. */
const REFRESH = 'every 3s';

/**
 * A short digest of which decisions wait and where each stands (who approved it so far, the
 * arguments it would run with): the list changed when it did, so an approval of a quorum shows on
 * every open inbox at the next ask.
 */
export function pendingVersion(list: PendingList): string {
  const keys = list.decisions
    .map((d) =>
      [
        d.workflowId,
        d.kind,
        d.callId ?? '',
        (d.approvals ?? []).map((vote) => vote.by).join(','),
        JSON.stringify(d.args ?? {}),
      ].join('\n'),
    )
    .join('\n\n');
  return createHash('sha256').update(keys).digest('hex').slice(0, 16);
}

/** The section of waiting decisions, as `viewer` sees them (only who may decide gets the buttons). */
export function waitingSection(list: PendingList, viewer: Pick<Person, 'name'>, now = new Date()): Html {
  const newestFirst = [...list.decisions].reverse();
  const version = pendingVersion(list);
  return html`<section id="waiting" hx-get="/inbox/waiting?v=${version}" hx-trigger="${REFRESH}" hx-swap="outerHTML">
    <h1>Waiting now ${waitingCount(newestFirst.length)}</h1>
    ${newestFirst.length === 0 ? html`<p class="empty">Nothing waits for a person.</p>` : ''}
    ${newestFirst.map((decision) => decisionCard(decision, { viewer, now }))}
    ${
      list.unanswered.length > 0
        ? html`<p class="muted">
            No worker answered for ${list.unanswered.join(', ')}: what they wait for shows once a worker serves them.
          </p>`
        : ''
    }
  </section>`;
}

/** How many decisions wait, in the section's heading. */
function waitingCount(count: number, outOfBand = false): Html {
  return html`<span id="waiting-count" class="muted" ${outOfBand ? raw('hx-swap-oob="true"') : ''}>(${count})</span>`;
}

/**
 * The heading's count as it stands after a decision, swapped in beside the card's answer (htmx's
 * out-of-band swap), so the inbox counts the decision at once, not at its next refresh.
 */
export function waitingCountUpdate(list: PendingList): Html {
  return waitingCount(list.decisions.length, true);
}
