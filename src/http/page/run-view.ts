import { html } from 'hono/html';
import { pendingOf } from '../../client/pending';
import type { RunStatusReport } from '../../client/runs';
import type { RunProgress, SettlingWave, ToolCallRecord, WaveRecord } from '../../contract/agent-loop';
import type { CallOutcome } from '../../contract/effects/outcome';
import type { HandoffRecord } from '../../contract/handoff';
import type { Person } from '../../contract/people/people';
import { chainView, decisionCard } from './decision-view';
import { effectsSection, type EffectsRead } from './effects-view';
import { clip, pretty } from './format';
import type { Html } from './layout';

/**
 * A run's page: its goal and status, what it waits for, its result (with the typed output), what
 * it changed (`effects-view.ts`), its waves and a link to the run in the Temporal Web UI. While the run goes on, the section follows
 * the run's event stream (`/api/runs/{id}/events`, htmx's SSE extension): each event fetches the
 * section anew, one fetch at a time. The forms inside (a decision, an undo) do not share that queue:
 * a click while the section is fetched is sent at once, not queued behind the fetch and dropped with
 * the form it replaces. The section of an ended run has no stream.
 */

/** The events after which the section is fetched anew. */
const LIVE_EVENTS = ['said', 'call', 'approval', 'outcome', 'question', 'message', 'ended', 'failed'];

/** The longest tool result shown in full; a longer one is cut, and the API has all of it. */
const RESULT_CHARS = 4000;

/** Whether the run has ended: its section no longer follows it. */
export function hasEnded(report: RunStatusReport): boolean {
  return report.execution !== 'RUNNING';
}

/** The whole section of the run (`#run`), following its event stream while it runs; with what it changed, when read. */
export function runSection(
  report: RunStatusReport,
  webUi: string | undefined,
  viewer: Pick<Person, 'name'>,
  effects?: EffectsRead,
): Html {
  const id = encodeURIComponent(report.workflowId);
  if (hasEnded(report)) return html`<section id="run">${runBody(report, webUi, viewer, effects)}</section>`;
  return html`<section
    id="run"
    hx-ext="sse"
    sse-connect="/api/runs/${id}/events"
    sse-close="ended"
    hx-get="/runs/${id}/view"
    hx-trigger="${LIVE_EVENTS.map((event) => `sse:${event}`).join(', ')}"
    hx-sync="this:queue last"
    hx-disinherit="hx-sync"
    hx-swap="innerHTML"
  >
    ${runBody(report, webUi, viewer, effects)}
  </section>`;
}

/** What the section holds (the cards of what it waits for as `viewer` sees them; what the run changed, when read). */
export function runBody(
  report: RunStatusReport,
  webUi: string | undefined,
  viewer: Pick<Person, 'name'>,
  effects?: EffectsRead,
): Html {
  const { progress, result } = report;
  const status = progress?.status ?? result?.status ?? report.execution.toLowerCase();
  const own = progress ? pendingOf({ workflowId: report.workflowId, goal: report.goal }, progress) : [];
  // An undo of the run that waits for approvals (docs/effects.md#undo-approvals): its cards too.
  const pending = [...own, ...(effects?.undo?.pending ?? [])];
  const waves: Array<WaveRecord | SettlingWave> = [
    ...(result?.waves ?? progress?.waves ?? []),
    ...(progress?.settling ? [progress.settling] : []),
  ];
  const usage = result?.usage ?? progress?.usage;
  const chain = progress?.chain ?? result?.chain;
  return html`<h1>${report.goal ?? report.workflowId}</h1>
    <div class="muted">
      <span class="status ${status}" data-status="${status}">${status}</span>${
        progress?.dryRun || result?.dryRun ? html` <span class="badge dry-run">dry run</span>` : ''
      }
      · ${report.workflowId}${progress ? html` · ${progress.agent} · ${progress.model}` : ''}
      ${progress ? html` · iteration ${progress.iteration} of ${progress.maxIterations}` : ''}
      ${result ? html` · ${result.iterations} iteration${result.iterations === 1 ? '' : 's'}` : ''}
      ${usage ? html` · ${usage.totalTokens} tokens` : ''}
      ${webUi ? html` · <a href="${webUi}" target="_blank" rel="noopener">Temporal Web UI</a>` : ''} ·
      <a href="/api/runs/${encodeURIComponent(report.workflowId)}">JSON</a>
    </div>
    ${chain ? html`<div class="muted called-by">called by an agent: ${chainView(chain)}</div>` : ''}
    ${
      pending.length > 0
        ? html`<h2>Waiting for you</h2>
            ${pending.map((decision) => decisionCard(decision, { viewer }))}`
        : ''
    }
    ${handoffsLine(result?.handoffs ?? progress?.handoffs)}
    ${
      report.failure
        ? html`<h2>Failed</h2>
            <div class="error">${report.failure}</div>`
        : ''
    }
    ${result ? resultView(result) : ''} ${effects ? effectsSection(report.workflowId, effects, hasEnded(report)) : ''}
    <h2>Waves</h2>
    ${
      waves.length === 0
        ? html`<p class="empty">No tool calls yet.</p>`
        : waves.reverse().map((wave) => waveView(wave, progress))
    }`;
}

/** The run's handoffs, when its agents handed over (docs/agents.md#handoffs). */
function handoffsLine(handoffs: readonly HandoffRecord[] | undefined): Html | string {
  if (!handoffs?.length) return '';
  return html`<p class="muted handoffs">
    Handed over: ${handoffs.map((h, i) => html`${i ? ', ' : ''}${h.from} → ${h.to} (iteration ${h.iteration})`)}
  </p>`;
}

function resultView(result: NonNullable<RunStatusReport['result']>): Html {
  return html`<h2>Answer</h2>
    <pre class="answer">${result.answer}</pre>
    ${
      result.output !== undefined
        ? html`<h2>Output</h2>
            <pre class="output">${pretty(result.output)}</pre>`
        : ''
    }
    ${
      result.outputErrors?.length
        ? html`<h2>Why the answer does not match its schema</h2>
            <ul>
              ${result.outputErrors.map((error) => html`<li>${error}</li>`)}
            </ul>`
        : ''
    }`;
}

/**
 * One iteration's wave: what the model said with its calls, then each call. The wave that runs now
 * counts its open calls too, each saying what it waits for: a person's approval, an answer, a
 * person's word on an outcome, or its tool.
 */
function waveView(wave: WaveRecord | SettlingWave, progress: RunProgress | undefined): Html {
  const open = 'open' in wave ? wave.open : [];
  const count = wave.calls.length + open.length;
  return html`<div class="wave">
    <h3>
      Iteration ${wave.iteration}: ${count}
      call${count === 1 ? '' : 's'}${open.length ? html`, ${open.length} open` : ''}
    </h3>
    ${wave.said ? html`<p class="said">${wave.said}</p>` : ''} ${wave.calls.map(callView)}
    ${open.map(
      (call) =>
        html`<div class="call open" data-call="${call.id}">
          <strong>${call.tool}</strong> <span class="muted">${openLine(call.id, progress)}</span>
          ${
            call.agentRun
              ? html`<div class="muted agent-run">
                  its run: <a href="/runs/${encodeURIComponent(call.agentRun)}">${call.agentRun}</a>
                </div>`
              : ''
          }
        </div>`,
    )}
  </div>`;
}

/** What an open call of the running wave waits for. */
function openLine(callId: string, progress: RunProgress | undefined): string {
  if (progress?.pendingApprovals.some((call) => call.callId === callId)) return 'waits for approval';
  if (progress?.pendingOutcomes?.some((call) => call.callId === callId)) return 'may have run: waits for a person';
  if (progress?.pendingQuestions.some((question) => question.callId === callId)) return 'waits for an answer';
  return 'running';
}

/** How a call whose attempt may have acted was settled, in words. */
function outcomeLine({ path, by, why }: CallOutcome): string {
  const how = {
    reconciled: 'found by its reconcile',
    confirmed: `confirmed by ${by}`,
    rerun: `run again (${by})`,
    given_up: `given up by ${by}`,
  };
  return `may have run (${why}): ${how[path]}`;
}

function callView(call: ToolCallRecord): Html {
  const approval = call.approval;
  return html`<div class="call ${call.ok ? 'ok' : 'failed'}" data-call="${call.id}">
    <strong>${call.tool}</strong> <code>${clip(JSON.stringify(call.args), 300)}</code>
    ${
      approval
        ? html`<div class="muted">
            ${approval.decision} by
            ${approval.by}${approval.originalArgs ? ', with edited arguments' : ''}${
              approval.reason ? html`: ${approval.reason}` : ''
            }
          </div>`
        : ''
    }
    ${call.heldBack ? html`<div class="muted held-back">held back: a dry run, it did not run</div>` : ''}
    ${call.outcome ? html`<div class="muted outcome">${outcomeLine(call.outcome)}</div>` : ''}
    ${
      call.agentRun
        ? html`<div class="muted agent-run">
            its run: <a href="/runs/${encodeURIComponent(call.agentRun.workflowId)}">${call.agentRun.workflowId}</a>
            ${call.agentRun.status ? html`(${call.agentRun.status})` : ''}
          </div>`
        : ''
    }
    ${call.ok ? html`<pre>${clip(call.result ?? '', RESULT_CHARS)}</pre>` : html`<div class="error">${call.error}</div>`}
  </div>`;
}
