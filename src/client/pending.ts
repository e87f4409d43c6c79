import type { AgentChain } from '../contract/agent-chain';
import type { RunProgress } from '../contract/agent-loop';
import { answerCommandLine, approveCommandLine, sendCommandLine } from '../contract/command-lines';
import { OUTCOME_CHOICES, outcomeCommandLine, type OutcomeChoice } from '../contract/effects/outcome';
import type { ApprovalVote, CallPreview } from '../contract/people/approvals';
import type { ListedRun } from './run-list';

/** One decision waiting for a person (`runs.pending`, `waveloop pending`). */
export interface PendingDecision {
  workflowId: string;
  /**
   * An approval of a tool call, the answer to a question, a conversation's next message, or the
   * outcome of a `write` call that may or may not have run (docs/effects.md#unknown-outcomes).
   */
  kind: 'approval' | 'question' | 'message' | 'outcome';
  /** The call that waits (an approval's, a question's or an outcome's). */
  callId?: string;
  /** An approval's or an outcome's tool, the iteration of its wave, and its arguments. */
  tool?: string;
  iteration?: number;
  args?: Record<string, unknown>;
  /** The model's arguments, when a person's edit replaced them (`args` holds the edit). */
  originalArgs?: Record<string, unknown>;
  /** An outcome's choices (`happened`, `again`, `give_up`), and why it is unknown (how its attempt ended). */
  choices?: OutcomeChoice[];
  why?: string;
  /** Why the approval is asked (the tool's rule said), and until when it may wait before its deadline decides. */
  reason?: string;
  deadline?: string;
  /** An approval's tool's description. */
  description?: string;
  /** Who may decide an approval or an outcome (the rule's words, and the people they stand for); absent: anyone. */
  approvers?: { label: string; names: string[] };
  /** How many people must approve, and who has so far (each with when). */
  quorum?: number;
  approvals?: ApprovalVote[];
  /** The run's starter may not approve it (four eyes). */
  fourEyes?: boolean;
  /** What the call would change (its tool's `preview`), or why that could not be read. */
  preview?: CallPreview;
  /** Who started the run, and when; its agent. */
  startedBy?: string;
  startedAt?: string;
  agent?: string;
  /**
   * Where the run stands in a tree of agents, when another agent's call started it: the root run's
   * id and goal, each parent agent and its call that started the next run (docs/agents.md).
   */
  chain?: AgentChain;
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
  const starter = {
    startedBy: progress.startedBy,
    startedAt: progress.startedAt,
    agent: progress.agent,
    ...(progress.chain ? { chain: progress.chain } : {}),
  };
  const approvals = progress.pendingApprovals.map((call): PendingDecision => ({
    workflowId,
    kind: 'approval',
    callId: call.callId,
    tool: call.tool,
    iteration: call.iteration,
    args: call.args,
    ...(call.originalArgs ? { originalArgs: call.originalArgs } : {}),
    ...(call.reason ? { reason: call.reason } : {}),
    ...(call.deadline ? { deadline: call.deadline } : {}),
    ...(call.description ? { description: call.description } : {}),
    ...(call.approvers ? { approvers: call.approvers } : {}),
    quorum: call.quorum ?? 1,
    approvals: call.approvals ?? [],
    ...(call.fourEyes ? { fourEyes: true } : {}),
    ...(call.preview ? { preview: call.preview } : {}),
    ...starter,
    goal,
    waitingSince: call.since,
    command: approveCommandLine(workflowId, call.callId),
  }));
  const outcomes = (progress.pendingOutcomes ?? []).map((call): PendingDecision => ({
    workflowId,
    kind: 'outcome',
    callId: call.callId,
    tool: call.tool,
    iteration: call.iteration,
    args: call.args,
    choices: [...OUTCOME_CHOICES],
    why: call.why,
    ...(call.approvers ? { approvers: call.approvers } : {}),
    ...starter,
    goal,
    waitingSince: call.since,
    command: outcomeCommandLine(workflowId, call.callId),
  }));
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
  return [...approvals, ...outcomes, ...questions, ...messages];
}
