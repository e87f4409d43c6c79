import { html } from 'hono/html';
import type { Html } from './layout';

/** "Start a run": pick an agent, write the goal. */

/** What was typed into a start that was refused, and why. */
export interface StartTyped {
  agent?: string;
  goal?: string;
  error?: string;
}

/** The form; `agents` are the project's (a free field when the server does not know them). */
export function startForm(agents: readonly string[], typed: StartTyped = {}): Html {
  const chosen = typed.agent ?? (agents.includes('default') ? 'default' : agents[0]);
  return html`<form id="start" hx-post="/start" hx-swap="outerHTML">
    <h1>Start a run</h1>
    ${typed.error ? html`<div class="error" role="alert">${typed.error}</div>` : ''}
    <p>
      <label
        >Agent
        ${
          agents.length > 0
            ? html`<select name="agent">
                ${agents.map((agent) => html`<option value="${agent}" ${agent === chosen ? 'selected' : ''}>${agent}</option>`)}
              </select>`
            : html`<input type="text" name="agent" value="${typed.agent ?? ''}" placeholder="default" />`
        }
      </label>
    </p>
    <p>
      <label class="goal"
        >Goal
        <textarea name="goal" placeholder="What should the agent do?" required>${typed.goal ?? ''}</textarea>
      </label>
    </p>
    <button class="primary">Start</button>
  </form>`;
}
