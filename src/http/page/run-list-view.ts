import { html } from 'hono/html';
import { type RunPage } from '../../client/run-list';
import { RUN_STATES } from '../../contract/agent-loop';
import { PURSUE_GOAL_WORKFLOW } from '../../contract/goal-tree/defaults';
import { ago, clip } from './format';
import type { Html } from './layout';

/** "Runs": a page of the newest runs and goal trees, filterable by status, with a link to the next page. */

/** How many runs a page shows. */
export const RUNS_PER_PAGE = 50;

/** The list of `page`, filtered by `status` when given. */
export function runListView(page: RunPage, status: string | undefined, now = new Date()): Html {
  const next = page.cursor
    ? `/runs?${new URLSearchParams({ ...(status ? { status } : {}), cursor: page.cursor })}`
    : undefined;
  return html`<h1>Runs</h1>
    <form method="get" action="/runs" class="actions">
      <label
        >Status
        <select name="status" onchange="this.form.submit()">
          <option value="">any</option>
          ${RUN_STATES.map((s) => html`<option value="${s}" ${s === status ? 'selected' : ''}>${s}</option>`)}
        </select>
      </label>
      <noscript><button>Filter</button></noscript>
    </form>
    ${
      page.runs.length === 0
        ? html`<p class="empty">No runs${status ? html` with status ${status}` : ''}.</p>`
        : html`<table>
            <thead>
              <tr>
                <th>Started</th>
                <th>Status</th>
                <th>Goal</th>
                <th>Run</th>
                <th>Priority</th>
              </tr>
            </thead>
            <tbody>
              ${page.runs.map(
                (run) =>
                  html`<tr>
                    <td title="${run.startTime.toISOString()}">${ago(run.startTime, now)} ago</td>
                    <td>
                      <span class="status ${run.status}">${run.status}</span>${
                        run.dryRun ? html` <span class="badge dry-run">dry run</span>` : ''
                      }
                    </td>
                    <td class="goal">${clip(run.goal ?? '', 160)}</td>
                    <td><a href="${pageOf(run.workflowType, run.workflowId)}">${run.workflowId}</a></td>
                    <td>
                      ${run.priority?.priorityKey ?? ''}${run.priority?.fairnessKey ? html` · ${run.priority.fairnessKey}` : ''}
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    <div class="pager">
      ${status || page.cursor !== undefined ? html`<a href="/runs${status ? `?status=${status}` : ''}">First page</a>` : ''}
      ${next ? html`<a href="${next}" rel="next">Next page</a>` : ''}
    </div>`;
}

/** The page of a run: a goal tree's, or an agent run's. */
export function pageOf(workflowType: string, workflowId: string): string {
  return `/${workflowType === PURSUE_GOAL_WORKFLOW ? 'goals' : 'runs'}/${encodeURIComponent(workflowId)}`;
}
