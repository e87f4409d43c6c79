import type { Evidence, GoalResult } from './pursue-goal';

/**
 * The texts a goal tree hands around: compact evidence, the goal text of a tool loop, the summaries
 * the Web UI shows. Pure and free of zod: the workflow, the prompts (activities) and the client use them.
 */

/** Evidence items a goal passes on (the latest ones), and how much of each. */
export const MAX_EVIDENCE_ITEMS = 12;
export const MAX_EVIDENCE_SUMMARY_CHARS = 600;
const MAX_FINDINGS = 5;
const MAX_FINDING_CHARS = 200;
const MAX_WORKFLOW_SUMMARY_CHARS = 200;

/** How many goals elsewhere in the tree a goal is told about (the nearest first), each clipped. */
const MAX_OTHER_GOALS = 20;
const MAX_OTHER_GOAL_CHARS = 200;

/** The goals elsewhere in the tree for a sub-goal: its siblings, then what its parent was told. */
export function otherGoals(siblings: readonly string[], goal: string, inherited: readonly string[]): string[] {
  const others = [...siblings.filter((sibling) => sibling !== goal), ...inherited].map((other) =>
    clip(other, MAX_OTHER_GOAL_CHARS),
  );
  return [...new Set(others)].slice(0, MAX_OTHER_GOALS);
}

/** A goal's result as later goals see it. */
export function toEvidence(result: GoalResult): Evidence {
  return {
    goal: result.goal,
    status: result.status,
    summary: clip(result.report.summary || result.reason || '', MAX_EVIDENCE_SUMMARY_CHARS),
    key_findings: result.report.key_findings.slice(0, MAX_FINDINGS).map((f) => clip(f, MAX_FINDING_CHARS)),
  };
}

/** The evidence a child starts with: what its parent had plus its parent's results so far, latest kept. */
export function evidenceFor(inherited: readonly Evidence[], results: readonly GoalResult[]): Evidence[] {
  return [...inherited, ...results.map(toEvidence)].slice(-MAX_EVIDENCE_ITEMS);
}

/** Evidence as the prompts show it: one line a goal (`- [status] goal: summary`), its findings below. */
export function formatEvidence(evidence: readonly Evidence[]): string {
  if (evidence.length === 0) return '  (none yet)';
  return evidence
    .map((e) => {
      const findings = e.key_findings.map((f) => `\n      · ${f}`).join('');
      return `  - [${e.status}] ${e.goal}: ${e.summary}${findings}`;
    })
    .join('\n');
}

/** The goal an `agentLoop` child is given: the goal on the first line, then its context. */
export function executionGoal(
  goal: string,
  rootGoal: string,
  action: string | undefined,
  evidence: readonly Evidence[],
): string {
  return [
    goal,
    '',
    'Context: this is one step of a larger goal.',
    `- The goal of the whole tree: ${rootGoal}`,
    ...(action ? [`- Planned action: ${action}`] : []),
    `- Evidence so far:\n${formatEvidence(evidence)}`,
    'Answer with what you found or did.',
  ].join('\n');
}

/** A goal as the Web UI shows it in a workflow's summary. */
export function workflowSummary(text: string): string {
  return clip(text.replace(/\s+/g, ' ').trim(), MAX_WORKFLOW_SUMMARY_CHARS);
}

/** `text`, cut to `max` characters with an ellipsis when longer. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
