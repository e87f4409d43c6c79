import { html } from 'hono/html';
import type { GoalTreeNode } from '../../client/goal-tree';
import { clip, pretty } from './format';
import type { Html } from './layout';

/**
 * A goal tree's page: each goal with its status, its report's summary, and a link to the run of its
 * tool loop (where its waves and the decisions it waits for are). While the root runs, the section is
 * fetched anew every few seconds: a tree has no event stream of its own.
 */

/** The whole section of the tree (`#tree`). */
export function goalSection(root: GoalTreeNode): Html {
  const id = encodeURIComponent(root.workflowId ?? '');
  const live = root.execution === 'RUNNING';
  return html`<section
    id="tree"
    ${live ? html`hx-get="/goals/${id}/view" hx-trigger="every 2s" hx-swap="outerHTML"` : ''}
  >
    <h1>${root.goal}</h1>
    <div class="muted">
      goal tree · ${root.workflowId} ·
      <a href="/api/goals/${id}/tree">JSON</a>
    </div>
    ${
      root.result?.output !== undefined
        ? html`<h2>Output</h2>
            <pre class="output">${pretty(root.result.output)}</pre>`
        : ''
    }
    <ul class="tree">
      ${nodeView(root)}
    </ul>
  </section>`;
}

function nodeView(node: GoalTreeNode): Html {
  const status = node.result?.status ?? node.execution.toLowerCase();
  const loop = node.toolLoop?.workflowId ?? node.openExecution;
  return html`<li class="goal-node" data-status="${status}">
    <div>
      <span class="status ${status}">${status}</span> ${node.goal}
      ${loop ? html` · <a href="/runs/${encodeURIComponent(loop)}">its run</a>` : ''}
    </div>
    ${node.result?.report.summary ? html`<div class="muted">${clip(node.result.report.summary, 400)}</div>` : ''}
    ${node.failure ? html`<div class="error">${node.failure}</div>` : ''}
    ${
      node.children.length > 0
        ? html`<ul class="tree">
            ${node.children.map(nodeView)}
          </ul>`
        : ''
    }
  </li>`;
}
