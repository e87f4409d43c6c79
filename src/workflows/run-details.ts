import type { AuditWaiting, RunProgress } from '../contract/agent-loop';
import {
  answerCommandLine,
  approveCommandLine,
  denyCommandLine,
  endCommandLine,
  sendCommandLine,
} from '../contract/command-lines';
import { outcomeCommandLine, unknownOutcomeLine } from '../contract/effects/outcome';
import { needsLine, previewLines } from '../contract/people/approvals';
import { toolSummary } from '../contract/summaries';

/** The first line of a dry run's details. */
export const DRY_RUN_LINE = '**DRY RUN** · only `read` tools run; every other call is held back and changes nothing';

/** The most characters of a call's arguments, a question or a message the details show. */
const MAX_TEXT_CHARS = 500;

/** What a run is doing, for its current details. */
export interface RunMoment {
  progress: RunProgress;
  workflowId: string;
  /** The tools of the wave that runs, in call order (its settled calls are `progress.settling`). */
  wave?: string[];
}

/**
 * A run's current details as the Web UI and `temporal workflow metadata` show them (Markdown): what
 * it waits for from a person, with the exact command that gives it (each question, each call
 * waiting for approval with its arguments, each call of unknown outcome, the conversation's last
 * message), else where the loop is (iteration, model call or wave), else how it ended; a dry run's
 * details begin by saying so, a handed-over run's say to which agent, and a forked run's end with
 * where it was forked from.
 */
export function runDetails(moment: RunMoment): string {
  const { forkedFrom, auditWaiting, dryRun } = moment.progress;
  const now = auditWaiting ? `${momentDetails(moment)}\n\n${auditWaitingLine(auditWaiting)}` : momentDetails(moment);
  const shown = dryRun ? `${DRY_RUN_LINE}\n\n${now}` : now;
  const { handoffs } = moment.progress;
  const last = handoffs?.at(-1);
  const details = last
    ? `${shown}\n\nRuns as ${last.to}: ${last.from} handed over at iteration ${last.iteration}`
    : shown;
  if (!forkedFrom) return details;
  return `${details}\n\nForked from \`${forkedFrom.workflowId}\` at iteration ${forkedFrom.iteration} (run ${forkedFrom.runId})`;
}

function momentDetails({ progress, workflowId, wave }: RunMoment): string {
  const where = `iteration ${progress.iteration} of ${progress.maxIterations}`;
  const waits = [
    ...questions(progress, workflowId),
    ...approvals(progress, workflowId),
    ...outcomes(progress, workflowId),
    ...conversation(progress, workflowId),
  ];
  if (waits.length)
    return [`**Waiting for a person** · ${where} · started by ${progress.startedBy}`, ...waits].join('\n\n');
  switch (progress.phase) {
    case 'starting':
      return '**Starting** · resolving the agent and its tools';
    case 'model':
      return progress.modelRateLimit
        ? `**Running** · ${where} · waiting for the model (${progress.model}), or for the model's rate limit: ` +
            `${progress.modelRateLimit.requestsPerMinute} calls a minute for every run of task queue ` +
            `\`${progress.modelRateLimit.taskQueue}\` (a call the limit holds back shows as Scheduled in Pending Activities)`
        : `**Running** · ${where} · waiting for the model (${progress.model})`;
    case 'tools': {
      const settled = progress.settling?.calls.length ?? 0;
      const tools = wave ?? [];
      return `**Running** · ${where} · wave ${progress.iteration}: ${tools.join(', ')} (${settled} of ${tools.length} calls settled)`;
    }
    case 'waiting':
      return `**Running** · ${where}`;
    case 'done':
      return progress.status === 'failed'
        ? `**Failed** after ${progress.iteration} iterations`
        : `**Ended: ${progress.status}** after ${progress.iteration} iterations`;
  }
}

/** What the run says while the audit store does not take one of its records. */
export function auditWaitingLine({ since, record, error }: AuditWaiting): string {
  return `**Waiting for the audit store** since ${since}: record \`${record}\` is not written yet (${clip(error)}); it is tried again until it is, and the run ends only then.`;
}

function questions(progress: RunProgress, workflowId: string): string[] {
  return progress.pendingQuestions.map(
    (q) => `Question: ${clip(q.question)}\n\nAnswer with \`${answerCommandLine(workflowId)}\``,
  );
}

function approvals(progress: RunProgress, workflowId: string): string[] {
  return progress.pendingApprovals.map(
    (a) =>
      `Approval needed: ${toolSummary(a.iteration, a.tool, {})} with arguments \`${clip(JSON.stringify(a.args))}\`` +
      (a.reason ? `\n\nWhy: ${clip(a.reason)}` : '') +
      (a.preview ? `\n\nWould change: ${clip(previewLines(a.preview).join('; '))}` : '') +
      (needsLine(a) ? `\n\nWho decides: ${needsLine(a)}` : '') +
      (a.deadline
        ? `\n\nUndecided by ${a.deadline}, it is ${a.onTimeout === 'approve' ? 'approved' : 'denied'}.`
        : '') +
      '\n\n' +
      `Approve with \`${approveCommandLine(workflowId, a.callId)}\` or deny with \`${denyCommandLine(workflowId, a.callId)}\``,
  );
}

function outcomes(progress: RunProgress, workflowId: string): string[] {
  return (progress.pendingOutcomes ?? []).map(
    (o) =>
      `Unknown outcome: ${clip(unknownOutcomeLine(o.tool, o.args))} (${o.why}).` +
      (o.approvers ? `\n\nWho decides: ${o.approvers.label}` : '') +
      `\n\nSay whether it happened, run it again, or give up: \`${outcomeCommandLine(workflowId, o.callId)}\``,
  );
}

function conversation(progress: RunProgress, workflowId: string): string[] {
  if (!progress.conversation) return [];
  return [
    `The agent said: ${clip(progress.conversation.message)}\n\nReply with \`${sendCommandLine(workflowId)}\` or end with \`${endCommandLine(workflowId)}\``,
  ];
}

function clip(text: string): string {
  return text.length <= MAX_TEXT_CHARS ? text : `${text.slice(0, MAX_TEXT_CHARS - 1)}…`;
}
