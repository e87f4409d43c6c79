import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { ForkPoint } from '../contract/activity-io';
import { AGENT_LOOP_WORKFLOW, type AgentLoopInput, type ChatMessage } from '../contract/agent-loop';
import { ForkRefusedError } from '../contract/fork/fork';
import type { ForkInput } from '../contract/fork/schema';
import { modelTranscriptQuery } from '../contract/messages';
import { lastIteration, readRunRecord, type RecordedModelCall, type RunRecord } from './fork-history';
import { queryWithRetry } from './query';

/** Where iteration N of a run sits: the run of its chain that made its model call, and that call. */
export interface LocatedIteration {
  workflowId: string;
  run: RunRecord;
  call: RecordedModelCall;
  iteration: number;
  /**
   * The input the source went on with after the iteration: its run's, or, when the iteration's wave
   * handed the run over to another agent (docs/agents.md#handoffs), the next run's, as that agent.
   */
  input: AgentLoopInput;
}

/**
 * Finds iteration `iteration` of run `workflowId` (its latest run, else `runId`) in the histories of
 * its chain, walking back through continue-as-new hand-overs. Needs no worker. Throws
 * `ForkRefusedError` for an unknown run, a workflow that is not an agent run, or an iteration the
 * run has not reached (or whose model reply it has not recorded yet).
 */
export async function locateIteration(
  client: Client,
  { workflowId, runId, iteration }: Pick<ForkInput, 'workflowId' | 'runId' | 'iteration'>,
): Promise<LocatedIteration> {
  const named = runId ? `run ${workflowId} (run id ${runId})` : `run ${workflowId}`;
  let description;
  try {
    description = await client.workflow.getHandle(workflowId, runId).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new ForkRefusedError(`There is no ${named} to fork.`);
    throw err;
  }
  if (description.type !== AGENT_LOOP_WORKFLOW)
    throw new ForkRefusedError(`${workflowId} is a ${description.type} workflow; only agent runs fork.`);
  let run = await readRunRecord(client, workflowId, description.runId);
  const last = lastIteration(run);
  const range = last === 0 ? `it has no iteration yet` : `its iterations are 1 to ${last}`;
  if (iteration > last) throw new ForkRefusedError(`Cannot fork ${named} at iteration ${iteration}: ${range}.`);
  let next: RunRecord | undefined;
  for (;;) {
    if (run.localModelCalls)
      throw new ForkRefusedError(
        `Cannot fork ${named}: its model calls ran as local activities (localModelCalls), whose transcripts its history does not record.`,
      );
    const call = run.calls.get(iteration);
    if (call) {
      // A run of the chain that began right after this iteration went on from its end, as whichever agent it handed over to.
      const input = next?.carriedIteration === iteration ? next.input : run.input;
      return { workflowId, run, call, iteration, input };
    }
    if (iteration > run.carriedIteration || !run.continuedFrom)
      throw new ForkRefusedError(
        `Cannot fork ${named} at iteration ${iteration}: its history records no model reply of it.`,
      );
    next = run;
    run = await readRunRecord(client, workflowId, run.continuedFrom);
  }
}

/**
 * The transcript of run `workflowId` up to and including iteration `iteration`'s tool results.
 * The history (`locateIteration`) says which run of the chain made the iteration's model call and
 * how long the transcript was then; that run's `transcript` query (answered by a worker, after
 * the run ended too) gives the messages, checked against the reply the history recorded. Throws
 * `ForkRefusedError` when the run summarised that part of its transcript away (memory pruning)
 * or the iteration's tool calls have not all settled yet.
 */
export async function readForkPoint(
  client: Client,
  fork: Pick<ForkInput, 'workflowId' | 'runId' | 'iteration'>,
): Promise<ForkPoint> {
  const { workflowId, run, call, iteration, input } = await locateIteration(client, fork);
  const handle = client.workflow.getHandle(workflowId, run.runId);
  const messages = await queryWithRetry(client, handle, modelTranscriptQuery);
  const at = call.count;
  if (!sameReply(messages[at], call.reply))
    throw new ForkRefusedError(
      `Cannot fork run ${workflowId} at iteration ${iteration}: the run summarised that part of its transcript (memory pruning); fork at a later iteration.`,
    );
  const results = waveLength(messages, at, iteration);
  if (results === undefined)
    throw new ForkRefusedError(
      `Cannot fork run ${workflowId} at iteration ${iteration} yet: its tool calls have not all settled.`,
    );
  const end = at + 1 + results;
  return { workflowId, runId: run.runId, iteration, messages: messages.slice(0, end), goal: input.goal };
}

/**
 * How many messages after the reply at `at` hold its wave's results: one tool message a call (native
 * tool calls), or one `Results of wave N:` message (the JSON planner's report, src/workflows/planners.ts),
 * or none for an answer. Undefined while some are missing (the wave is still running).
 */
function waveLength(messages: ChatMessage[], at: number, iteration: number): number | undefined {
  const reply = messages[at];
  const ids = reply.role === 'assistant' ? (reply.tool_calls ?? []).map((call) => call.id) : [];
  if (ids.length > 0) {
    const settled = ids.every((id, i) => {
      const result = messages[at + 1 + i];
      return result?.role === 'tool' && result.tool_call_id === id;
    });
    return settled ? ids.length : undefined;
  }
  const next = messages[at + 1];
  return next?.role === 'user' && next.content.startsWith(`Results of wave ${iteration}:`) ? 1 : 0;
}

function sameReply(message: ChatMessage | undefined, reply: RecordedModelCall['reply']): boolean {
  if (message?.role !== 'assistant') return false;
  const ids = (calls: typeof reply.tool_calls) => (calls ?? []).map((call) => call.id).join(',');
  return (message.content ?? '') === (reply.content ?? '') && ids(message.tool_calls) === ids(reply.tool_calls);
}
