import { proxyActivities, upsertMemo, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type { ForkPoint } from '../contract/activity-io';
import { RESOLVE_FORK_ACTIVITY_OPTIONS } from '../contract/activity-options';
import type { AgentLoopInput, ChatMessage } from '../contract/agent-loop';
import { FORKED_FROM_MEMO, type ForkedFrom } from '../contract/fork/fork';
import type { ForkInput } from '../contract/fork/schema';
import { asRunFailure } from './model-calls';

type Activities = ReturnType<typeof createActivities>;

const { resolveFork } = proxyActivities<Activities>(RESOLVE_FORK_ACTIVITY_OPTIONS);

/**
 * The transcript a forked run starts from, read by the `resolveFork` activity (the workflow reads
 * no other run). A fork that cannot be fails the run as `InvalidInput` before any model call.
 */
export async function forkPoint(fork: ForkInput): Promise<ForkPoint> {
  try {
    return await resolveFork.executeWithOptions(
      { ...RESOLVE_FORK_ACTIVITY_OPTIONS, summary: `fork ${fork.workflowId} at iteration ${fork.iteration}` },
      [fork],
    );
  } catch (err) {
    throw asRunFailure(err, `Reading run ${fork.workflowId} to fork it failed`);
  }
}

/** Says in the run's memo where it was forked from, unless its memo says so already (a run handed over). */
export function recordForkedFrom(forkedFrom: ForkedFrom): void {
  if (workflowInfo().memo?.[FORKED_FROM_MEMO]) return;
  upsertMemo({ [FORKED_FROM_MEMO]: forkedFrom });
}

/**
 * The transcript a run starts with: its system prompt and goal; for a fork, the source's transcript
 * after its iteration under this run's system prompt, then the fork's message.
 */
export function firstMessages(system: string, input: AgentLoopInput, forked: ForkPoint | undefined): ChatMessage[] {
  if (!forked)
    return [
      { role: 'system', content: system },
      { role: 'user', content: input.goal.trim() },
    ];
  const { messages } = forked;
  const message = input.fork?.message?.trim();
  return [
    { role: 'system', content: system },
    ...(messages[0]?.role === 'system' ? messages.slice(1) : messages),
    ...(message ? [{ role: 'user' as const, content: message }] : []),
  ];
}
