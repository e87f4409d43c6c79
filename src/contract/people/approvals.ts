/**
 * Who may decide a call that waits for approval, and what they see before deciding: the shape an
 * approval rule answers with, and the policy the worker makes of it when the call starts waiting
 * (recorded in the run's history, so a replay never asks the rule or the people directory again).
 * No zod here: workflow code imports it.
 */

/**
 * What an approval rule may ask for besides "it waits": `approvers` (groups or people of the people
 * directory; only they may decide), `quorum` (that many distinct people must approve; a deny by any
 * one of them denies), `fourEyes` (the person who started the run may not approve), and a `reason`.
 */
export interface ApprovalRequirement {
  reason?: string;
  approvers?: string[];
  quorum?: number;
  fourEyes?: boolean;
}

/** Who started a run or decided a call when the client did not say. */
export const UNKNOWN_PERSON = 'unknown';

/** One change a call would make, as its tool's `preview` reads it: `field: before → after`. */
export interface PreviewChange {
  field: string;
  before?: unknown;
  after?: unknown;
}

/**
 * What a person sees of a call before deciding, from its tool's `preview`: the changes it would
 * make and a line of text; or why the preview could not be made (the call waits all the same).
 */
export interface CallPreview {
  text?: string;
  changes?: PreviewChange[];
  error?: string;
}

/**
 * How a call that waits is decided, as the worker settled it when the call began to wait: who may
 * decide (`approvers`: the names the rule's groups and people stood for then, and the rule's own
 * words for them), how many must approve, whether the run's starter is barred, and what the person
 * reads: the tool's description, the rule's reason, the preview.
 */
export interface ApprovalPolicy {
  reason?: string;
  /** The tool's description. */
  description?: string;
  /** Only these people may decide; none: anyone who may reach the run. */
  approvers?: { label: string; names: string[] };
  /** How many distinct people must approve (1 unless the rule says more). */
  quorum: number;
  /** The person who started the run may not approve the call. */
  fourEyes: boolean;
  preview?: CallPreview;
}

/** One person's approval of a call: who, and when (ISO 8601, the run's time). */
export interface ApprovalVote {
  by: string;
  at: string;
}

/** "finance" for `['finance']`, "finance or alice" for two: who a call needs, in words. */
export function approversLabel(approvers: readonly string[]): string {
  return approvers.length <= 1 ? (approvers[0] ?? '') : `${approvers.slice(0, -1).join(', ')} or ${approvers.at(-1)}`;
}

/** "1 of 2: bob": a quorum's progress. */
export function quorumProgress(approvals: readonly ApprovalVote[], quorum: number): string {
  const names = approvals.map((vote) => vote.by).join(', ');
  return `${approvals.length} of ${quorum}${names ? `: ${names}` : ''}`;
}

/** A preview as lines of text: `text`, then `field: before → after` for each change; or its error. */
export function previewLines(preview: CallPreview): string[] {
  if (preview.error) return [`no preview: ${preview.error}`];
  const shown = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? '–'));
  return [
    ...(preview.text ? [preview.text] : []),
    ...(preview.changes ?? []).map((change) =>
      'before' in change && change.before !== undefined
        ? `${change.field}: ${shown(change.before)} → ${shown(change.after)}`
        : `${change.field}: → ${shown(change.after)}`,
    ),
  ];
}

/**
 * Who a waiting call needs, in words: `needs finance · 1 of 2: bob · four eyes`; empty when anyone
 * may approve it alone.
 */
export function needsLine(call: {
  approvers?: { label: string };
  quorum?: number;
  approvals?: readonly ApprovalVote[];
  fourEyes?: boolean;
}): string {
  const quorum = call.quorum ?? 1;
  return [
    ...(call.approvers ? [`needs ${call.approvers.label}`] : []),
    ...(quorum > 1 ? [quorumProgress(call.approvals ?? [], quorum)] : []),
    ...(call.fourEyes ? ['four eyes'] : []),
  ].join(' · ');
}
