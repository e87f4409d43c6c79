import type { GoalEvent, GoalTreeNode } from '../../client/goal-tree';
import type { ToolCallRecord } from '../../contract/agent-loop';
import type { GoalReport } from '../../contract/goal-tree/pursue-goal';
import { colors, statusColor } from './colors';
import { renderCall, tokenCount } from './render';

/** Rendering of goal trees for the terminal; statuses and failures are coloured at a terminal (`colors`). */

const SUMMARY_CHARS = 160;

/**
 * One line a goal, indented by depth: status, duration, goal and workflow id, then its report's summary
 * (or why it failed) on the next line.
 *
 *     achieved       3.2s  Plan a team offsite in Lisbon  [offsite]
 *       → Venue, budget and agenda are settled: …
 *       achieved     1.4s  Research venues in Lisbon  [offsite/1]
 */
export function renderGoalTree(tree: GoalTreeNode, now: Date = new Date()): string[] {
  const lines: string[] = [];
  const walk = (node: GoalTreeNode, indent: string) => {
    const status = node.result?.status ?? node.execution.toLowerCase();
    const id = node.workflowId ? `  [${node.workflowId}]` : '  (not started)';
    lines.push(
      `${indent}${statusColor(status)(status.padEnd(15))}${duration(node, now).padStart(7)}  ${oneLine(node.goal, 100)}${id}`,
    );
    const summary = node.result?.report.summary;
    const detail = node.result ? summary || node.result.reason : node.failure;
    if (detail)
      lines.push(
        `${indent}  → ${summary ? oneLine(detail, SUMMARY_CHARS) : colors.red(oneLine(detail, SUMMARY_CHARS))}`,
      );
    node.children.forEach((child) => walk(child, `${indent}  `));
  };
  walk(tree, '');
  return lines;
}

/** What a whole tree used, from its root's result. */
export function renderGoalTotals(tree: GoalTreeNode): string | undefined {
  const result = tree.result;
  if (!result) return undefined;
  return `${result.goals} goal${result.goals === 1 ? '' : 's'}, ${tokenCount(result.usage)}, $${result.costUsd.toFixed(4)}`;
}

/** A goal's report as `waveloop goal` prints the root's: its summary, then its findings, evidence and limitations. */
export function renderGoalReport(report: GoalReport): string[] {
  const list = (heading: string, items: readonly string[] | undefined) =>
    items?.length ? [`${heading}:\n${items.map((item) => `- ${item}`).join('\n')}`] : [];
  return [
    report.summary,
    ...list('Key findings', report.key_findings),
    ...list('Evidence', report.raw_evidence),
    ...list('Limitations', report.limitations),
  ];
}

/** An event of the log as `waveloop goal` prints it live. */
export function renderGoalEvent(event: GoalEvent): string {
  const where = event.workflowId ?? '(not started)';
  const detail = eventDetail(event);
  return `${where} · ${eventColor(event)(event.eventType)}${detail ? ` · ${detail}` : ''} · ${oneLine(event.goal, 80)}`;
}

/**
 * A call of a goal's tool loop (`loop`, its workflow id) as `waveloop goal` prints it when it
 * settles: `<loop> · wave N · tool(args) → result`.
 */
export function renderGoalCall(loop: string, iteration: number, call: ToolCallRecord): string {
  return `${loop} · ${renderCall(iteration, call)}`;
}

/** An event's colour: how a goal ended, or whether its execution succeeded; none for the steps on the way. */
function eventColor(event: GoalEvent): (text: string) => string {
  switch (event.eventType) {
    case 'started':
    case 'assessed':
    case 'decomposed':
      return (text) => text;
    case 'executed':
      return event.data.success ? colors.green : colors.red;
    default:
      return statusColor(event.eventType);
  }
}

function eventDetail(event: GoalEvent): string {
  const d = event.data;
  switch (event.eventType) {
    case 'assessed':
      return d.directly_executable ? `executable (${d.action ?? 'use_tools'})` : 'needs decomposition';
    case 'decomposed':
      return `${d.sub_goal_count} sub-goals in ${(d.levels as unknown[]).length} level(s)${d.dependency_problem ? ` (${d.dependency_problem})` : ''}`;
    case 'executed':
      return `${d.success ? 'done' : 'failed'} (${d.mode})`;
    case 'achieved':
      return `after ${d.sub_goals_completed} sub-goals`;
    case 'synthesized':
      return `confidence ${d.confidence}`;
    case 'constrained':
    case 'cycle_detected':
    case 'failed':
      return oneLine(String(d.reason ?? ''), 120);
    default:
      return '';
  }
}

function duration(node: GoalTreeNode, now: Date): string {
  if (!node.startTime) return '';
  const ms = (node.closeTime ?? now).getTime() - node.startTime.getTime();
  return ms < 60_000 ? `${(ms / 1000).toFixed(1)}s` : `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
