import type { RunProgress } from '../contract/agent-loop';
import { answerCommandLine, approveCommandLine, sendCommandLine } from '../contract/command-lines';
import type { ListedRun } from './run-list';

/** One decision waiting for a person (`runs.pending`, `waveloop pending`). */
export interface PendingDecision {
  workflowId: string;
  /** An approval of a tool call, the answer to a question, or a conversation's next message. */
  kind: 'approval' | 'question' | 'message';
  /** The call that waits (an approval's or a question's). */
  callId?: string;
  /** An approval's tool, the iteration of its wave, and its arguments. */
  tool?: string;
  iteration?: number;
  args?: Record<string, unknown>;
  /** Why the approval is asked (the tool's rule said), and until when it may wait before its deadline decides. */
  reason?: string;
  deadline?: string;
  /** A question's text. */
  question?: string;
  /** A conversation's last message from the agent. */
  message?: string;
  /** The run's goal (a goal tree's tool loop: its sub-goal), when known. */
  goal?: string;
  /** When it began to wait (ISO 8601, the run's own clock). */
  waitingSince: string;
  /** The command that decides it. */
  command: string;
}

/** What `runs.pending` found: the decisions, oldest first, and the waiting runs that did not answer. */
export interface PendingList {
  decisions: PendingDecision[];
  /** Runs that wait for a person but did not answer the `status` query (no worker serves them now). */
  unanswered: string[];
}

/** The decisions `progress` shows waiting on `run`. */
export function pendingOf(run: Pick<ListedRun, 'workflowId' | 'goal'>, progress: RunProgress): PendingDecision[] {
  const { workflowId, goal } = run;
  const approvals = progress.pendingApprovals.map(
    ({ callId, tool, iteration, args, since, reason, deadline }): PendingDecision => ({
      workflowId,
      kind: 'approval',
      callId,
      tool,
      iteration,
      args,
      ...(reason ? { reason } : {}),
      ...(deadline ? { deadline } : {}),
      goal,
      waitingSince: since,
      command: approveCommandLine(workflowId, callId),
    }),
  );
  const questions = progress.pendingQuestions.map(({ callId, question, since }): PendingDecision => ({
    workflowId,
    kind: 'question',
    callId,
    question,
    goal,
    waitingSince: since,
    command: answerCommandLine(workflowId),
  }));
  const conversation = progress.conversation;
  const messages: PendingDecision[] = conversation
    ? [
        {
          workflowId,
          kind: 'message',
          message: conversation.message,
          goal,
          waitingSince: conversation.since,
          command: sendCommandLine(workflowId),
        },
      ]
    : [];
  return [...approvals, ...questions, ...messages];
}
