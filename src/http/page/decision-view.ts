import { createHash } from 'node:crypto';
import { html, raw } from 'hono/html';
import type { PendingDecision } from '../../client/pending';
import { ago, pretty } from './format';
import type { Html } from './layout';

/**
 * One decision that waits for a person, as a card with what decides it: an approval (approve; deny
 * with a reason; edit the arguments as JSON, then approve), a question (answer it) or a conversation
 * (reply, or end it). Its forms post to the page's own routes, which answer with the card again
 * (with what went wrong, what was typed kept) or with what was decided.
 */

/** What a person typed into a card that was refused, to show it again with the error. */
export interface Typed {
  error?: string;
  reason?: string;
  args?: string;
  answer?: string;
  text?: string;
}

/** The card's element id: stable for one decision, so a refresh of the list keeps what was typed (`hx-preserve`). */
export function decisionId(decision: Pick<PendingDecision, 'workflowId' | 'kind' | 'callId'>): string {
  const key = `${decision.workflowId}\n${decision.kind}\n${decision.callId ?? ''}`;
  return `d-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

/** The card of `decision`, with `typed` (a refused attempt) when there was one. */
export function decisionCard(decision: PendingDecision, typed: Typed = {}, now = new Date()): Html {
  const id = decisionId(decision);
  const run = `/runs/${encodeURIComponent(decision.workflowId)}`;
  return html`<article class="card decision" id="${id}" data-kind="${decision.kind}">
    <h3>${title(decision)}</h3>
    <div class="muted">
      <a href="${run}">${decision.workflowId}</a> · waiting for
      ${ago(decision.waitingSince, now)}${
        decision.deadline ? html` · decided by its deadline at ${decision.deadline}` : ''
      }
    </div>
    ${decision.goal ? html`<div class="goal">${decision.goal}</div>` : ''}
    ${decision.reason ? html`<div class="reason">${decision.reason}</div>` : ''}
    ${typed.error ? html`<div class="error" role="alert">${typed.error}</div>` : ''}
    ${controls(decision, id, run, typed)}
  </article>`;
}

function title(decision: PendingDecision): Html {
  if (decision.kind === 'approval') return html`Approve <code>${decision.tool}</code>?`;
  if (decision.kind === 'question') return html`A question`;
  return html`The conversation waits for your reply`;
}

function controls(decision: PendingDecision, id: string, run: string, typed: Typed): Html {
  const target = `hx-target="#${id}" hx-swap="outerHTML"`;
  if (decision.kind === 'approval') {
    const action = `${run}/approvals/${encodeURIComponent(decision.callId ?? '')}`;
    const args = typed.args ?? pretty(decision.args ?? {});
    return html`<pre class="args">${pretty(decision.args ?? {})}</pre>
      <form hx-post="${action}" ${raw(target)}>
        <div class="actions">
          <button class="primary" name="decision" value="approve">Approve</button>
          <input
            type="text"
            name="reason"
            id="${id}-reason"
            hx-preserve
            value="${typed.reason ?? ''}"
            placeholder="Why not (the model reads it)"
            aria-label="Reason to deny"
          />
          <button class="danger" name="decision" value="deny">Deny</button>
        </div>
        <details ${typed.args !== undefined ? 'open' : ''}>
          <summary>Edit the arguments, then approve</summary>
          <textarea name="args" id="${id}-args" hx-preserve aria-label="Arguments (JSON)" spellcheck="false">
${args}</textarea>
          <button name="decision" value="edit">Approve with these arguments</button>
        </details>
      </form>`;
  }
  if (decision.kind === 'question') {
    const action = `${run}/answers/${encodeURIComponent(decision.callId ?? '')}`;
    return html`<pre class="question">${decision.question ?? ''}</pre>
      <form hx-post="${action}" ${raw(target)} class="actions">
        <input
          type="text"
          name="answer"
          id="${id}-answer"
          hx-preserve
          value="${typed.answer ?? ''}"
          aria-label="Answer"
          required
        />
        <button class="primary">Answer</button>
      </form>`;
  }
  return html`<pre class="message">${decision.message ?? ''}</pre>
    <form hx-post="${run}/messages" ${raw(target)}>
      <textarea name="text" id="${id}-text" hx-preserve aria-label="Reply">${typed.text ?? ''}</textarea>
      <div class="actions">
        <button class="primary">Send</button>
        <button hx-post="${run}/end" ${raw(target)}>End the conversation</button>
      </div>
    </form>`;
}

/** What replaces a card once its decision was taken. */
export function decidedCard(id: string, words: string, workflowId: string): Html {
  return html`<article class="card decided" id="${id}">
    <span class="done">${words}</span> ·
    <a href="/runs/${encodeURIComponent(workflowId)}">follow the run</a>
  </article>`;
}
