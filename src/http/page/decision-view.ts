import { createHash } from 'node:crypto';
import { html, raw } from 'hono/html';
import type { PendingDecision } from '../../client/pending';
import type { AgentChain } from '../../contract/agent-chain';
import { needsLine, previewLines, type CallPreview } from '../../contract/people/approvals';
import type { Person } from '../../contract/people/people';
import { ago, clip, pretty } from './format';
import type { Html } from './layout';

/**
 * One decision that waits for a person, as a card with what decides it: an approval (approve; deny
 * with a reason; edit the arguments as JSON, then approve), a call of unknown outcome (it happened,
 * with its result; run it again; give up), a question (answer it) or a conversation (reply, or end it). Its forms post to the page's own routes, which answer with the card again
 * (with what went wrong, what was typed kept) or with what was decided.
 */

/** What a person typed into a card that was refused, to show it again with the error. */
export interface Typed {
  error?: string;
  reason?: string;
  args?: string;
  answer?: string;
  text?: string;
  /** The result of a call of unknown outcome that happened. */
  result?: string;
}

/** The card's element id: stable for one decision, so a refresh of the list keeps what was typed (`hx-preserve`). */
export function decisionId(decision: Pick<PendingDecision, 'workflowId' | 'kind' | 'callId'>): string {
  const key = `${decision.workflowId}\n${decision.kind}\n${decision.callId ?? ''}`;
  return `d-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

/** Who looks at a card, and what they typed into it when it was refused. */
export interface CardOptions {
  /** The person the page is for (the session's): only who may decide gets the buttons. */
  viewer: Pick<Person, 'name'>;
  typed?: Typed;
  now?: Date;
}

/**
 * The card of `decision` as `viewer` sees it, with `typed` (a refused attempt) when there was one.
 * An approval's card says what the person reads before deciding: the tool's description, the rule's
 * reason, who started the run and when, its agent, the preview, who may decide and the quorum's
 * progress; its buttons are only for those who may use them (`mayDo`).
 */
export function decisionCard(decision: PendingDecision, { viewer, typed = {}, now = new Date() }: CardOptions): Html {
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
    ${starter(decision, now)} ${decision.goal ? html`<div class="goal">${decision.goal}</div>` : ''}
    ${decision.description ? html`<p class="description">${decision.description}</p>` : ''}
    ${decision.reason ? html`<div class="reason">${decision.reason}</div>` : ''}
    ${decision.why ? html`<div class="reason">It may or may not have run: ${decision.why}.</div>` : ''}
    ${decision.preview ? previewView(decision.preview) : ''}
    ${
      (decision.kind === 'approval' || decision.kind === 'outcome') && needsLine(decision)
        ? html`<div class="needs">${needsLine(decision)}</div>`
        : ''
    }
    ${typed.error ? html`<div class="error" role="alert">${typed.error}</div>` : ''}
    ${controls(decision, id, run, typed, mayDo(decision, viewer.name))}
  </article>`;
}

/** "started by alice, 3 min ago · agent payments": who asked for the run, when, and which agent runs it. */
function starter(decision: PendingDecision, now: Date): Html | string {
  const { startedBy, startedAt, agent } = decision;
  if (!startedBy && !agent) return '';
  return html`<div class="muted started">
    ${startedBy ? html`started by <span class="who">${startedBy}</span>` : ''}${
      startedBy && startedAt ? html`, ${ago(startedAt, now)} ago` : ''
    }${startedBy && agent ? ' · ' : ''}${agent ? html`agent <span class="agent">${agent}</span>` : ''}
    ${decision.chain ? chainView(decision.chain) : ''}
  </div>`;
}

/**
 * Why a nested call is asked for: the root run and its goal, then each agent above with the call
 * that started the next run (docs/agents.md#the-chain), each run a link.
 */
export function chainView(chain: AgentChain): Html {
  const run = (id: string, text: string) => html`<a href="/runs/${encodeURIComponent(id)}">${text}</a>`;
  return html`<div class="chain">
    for ${run(chain.root.workflowId, chain.root.workflowId)} (“${clip(chain.root.goal, 120)}”)
    ${chain.parents.map((link) => html` › ${run(link.workflowId, link.agent)} (call ${link.callId})`)}
  </div>`;
}

/** What the call would change (`field: before → after`), or why its preview could not be read. */
function previewView(preview: CallPreview): Html {
  if (preview.error) return html`<div class="preview preview-error" role="note">no preview: ${preview.error}</div>`;
  const changes = previewLines({ changes: preview.changes ?? [] });
  return html`<div class="preview">
    ${preview.text ? html`<div class="preview-text">${preview.text}</div>` : ''}
    ${
      changes.length > 0
        ? html`<ul class="changes" aria-label="What it would change">
            ${changes.map((line) => html`<li>${line}</li>`)}
          </ul>`
        : ''
    }
  </div>`;
}

/** What a person may do with a card, and, when not everything, why. */
export interface May {
  /** Decide at all: approve or deny. */
  decide: boolean;
  approve: boolean;
  /** Approve edited arguments (which starts the quorum again, so one who approved may). */
  edit: boolean;
  note?: string;
}

/**
 * What `viewer` may do with an approval, as the run's validators would let them: decide at all (an
 * approver, when the rule names them), approve (not the run's starter under four eyes, not twice),
 * and, when they may not, the line that says why. Questions and messages: anyone.
 */
export function mayDo(decision: PendingDecision, viewer: string): May {
  if (decision.kind !== 'approval' && decision.kind !== 'outcome') return { decide: true, approve: true, edit: true };
  if (decision.approvers && !decision.approvers.names.includes(viewer))
    return {
      decide: false,
      approve: false,
      edit: false,
      note: `Only ${decision.approvers.label} may decide it, not you (${viewer}).`,
    };
  if (decision.kind === 'outcome') return { decide: true, approve: true, edit: true };
  if (decision.fourEyes && decision.startedBy === viewer)
    return {
      decide: true,
      approve: false,
      edit: false,
      note: 'You started this run: under four eyes another person must approve it. You may deny it.',
    };
  const quorum = decision.quorum ?? 1;
  const approvals = decision.approvals ?? [];
  if (approvals.some((vote) => vote.by === viewer))
    return {
      decide: true,
      approve: false,
      edit: true,
      note: `You approved; waits for ${quorum - approvals.length} more.`,
    };
  return { decide: true, approve: true, edit: true };
}

/**
 * The arguments the call would run with; when a person edited them, marked so, with the model's
 * own beside them.
 */
function argsView(decision: PendingDecision): Html {
  const args = html`<pre class="args">${pretty(decision.args ?? {})}</pre>`;
  if (!decision.originalArgs) return args;
  return html`<div class="edited">
      <span class="badge">edited</span> a person changed the arguments; every approval counts from the edit.
    </div>
    ${args}
    <details class="original">
      <summary>The model's arguments</summary>
      <pre class="original-args">${pretty(decision.originalArgs)}</pre>
    </details>`;
}

function title(decision: PendingDecision): Html {
  // An undo's approval (docs/effects.md#undo-approvals) is of the call's reversal, not the call.
  if (decision.kind === 'approval' && decision.workflowId.startsWith('undo:'))
    return html`Approve the undo of <code>${decision.tool}</code>?`;
  if (decision.kind === 'approval') return html`Approve <code>${decision.tool}</code>?`;
  if (decision.kind === 'outcome') return html`Did <code>${decision.tool}</code> run?`;
  if (decision.kind === 'question') return html`A question`;
  return html`The conversation waits for your reply`;
}

function controls(decision: PendingDecision, id: string, run: string, typed: Typed, may: May): Html {
  const target = `hx-target="#${id}" hx-swap="outerHTML"`;
  if (decision.kind === 'approval') {
    const action = `${run}/approvals/${encodeURIComponent(decision.callId ?? '')}`;
    const args = typed.args ?? pretty(decision.args ?? {});
    const note = may.note ? html`<p class="note" role="note">${may.note}</p>` : '';
    if (!may.decide) return html`${argsView(decision)}${note}`;
    return html`${argsView(decision)}${note}
      <form hx-post="${action}" ${raw(target)}>
        <div class="actions">
          ${may.approve ? html`<button class="primary" name="decision" value="approve">Approve</button>` : ''}
          <input
            type="text"
            name="reason"
            id="${id}-reason"
            hx-preserve
            value="${typed.reason ?? ''}"
            placeholder="${decision.workflowId.startsWith('undo:') ? 'Why not (the undo lists it)' : 'Why not (the model reads it)'}"
            aria-label="Reason to deny"
          />
          <button class="danger" name="decision" value="deny">Deny</button>
        </div>
        ${
          may.edit
            ? html`<details ${typed.args !== undefined ? 'open' : ''}>
                <summary>Edit the arguments, then approve</summary>
                <textarea name="args" id="${id}-args" hx-preserve aria-label="Arguments (JSON)" spellcheck="false">
${args}</textarea>
                <button name="decision" value="edit">Approve with these arguments</button>
              </details>`
            : ''
        }
      </form>`;
  }
  if (decision.kind === 'outcome') return outcomeControls(decision, `${run}/outcomes`, id, typed, may);
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

/** A call of unknown outcome: its arguments, and the three choices (for who may decide). */
function outcomeControls(decision: PendingDecision, outcomes: string, id: string, typed: Typed, may: May): Html {
  const args = html`<pre class="args">${pretty(decision.args ?? {})}</pre>`;
  if (!may.decide)
    return html`${args}
      <p class="note" role="note">${may.note}</p>`;
  const action = `${outcomes}/${encodeURIComponent(decision.callId ?? '')}`;
  return html`${args}
    <form hx-post="${action}" hx-target="#${id}" hx-swap="outerHTML">
      <div class="actions">
        <input
          type="text"
          name="result"
          id="${id}-result"
          hx-preserve
          value="${typed.result ?? ''}"
          placeholder="Its result, if you know it (the model reads it)"
          aria-label="Result"
        />
        <button class="primary" name="choice" value="happened">It happened</button>
        <button name="choice" value="again">Run it again</button>
        <button class="danger" name="choice" value="give_up">Give up</button>
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
