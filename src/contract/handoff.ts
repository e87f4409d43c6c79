/**
 * Handoffs (docs/agents.md#handoffs): an agent hands the conversation over to another agent, which
 * goes on in the same run with the transcript so far. No zod and no I/O here: workflow code imports it.
 */

/** The prefix of a handoff's tool name: `transfer_to_billing` hands over to `billing`. */
export const HANDOFF_TOOL_PREFIX = 'transfer_to_';

/** The name of the tool that hands over to `agent`. */
export function handoffToolName(agent: string): string {
  return `${HANDOFF_TOOL_PREFIX}${agent}`;
}

/** One handoff of a run: from which agent to which, in which iteration, by which tool call. */
export interface HandoffRecord {
  from: string;
  to: string;
  iteration: number;
  callId: string;
}

/** What the model reads as the result of a handoff's call. */
export function handoffResult(to: string, reason: unknown): string {
  const why = typeof reason === 'string' && reason.trim() ? `: ${reason.trim()}` : '';
  return `Handed over to the ${to} agent${why}. It goes on from here with this conversation.`;
}
