import type { ToolInfo } from '../contract/activity-io';
import type { AgentLoopInput, ChatMessage, WaveRecord } from '../contract/agent-loop';
import { handoffResult, type HandoffRecord } from '../contract/handoff';
import { continueChain, type Continuation } from './continuation';
import { resolveRun } from './model-calls';

/**
 * What a handoff's call returns to the model: the workflow answers it itself, and the run hands
 * over once the wave has settled (`handOff`).
 */
export function handoffCall(tool: ToolInfo, args: Record<string, unknown>): { ok: true; result: string } {
  return { ok: true, result: handoffResult(tool.handoff!, args.reason) };
}

/** The handoff a wave asked for: its first handoff call (a model that asks for two goes to the first). */
export function handoffIn(
  wave: WaveRecord,
  tools: ReadonlyMap<string, ToolInfo>,
): { to: string; callId: string } | undefined {
  const call = wave.calls.find((c) => c.ok && tools.get(c.tool)?.handoff);
  return call && { to: tools.get(call.tool)!.handoff!, callId: call.id };
}

/**
 * Hands the run over to agent `to` (docs/agents.md#handoffs): the run is resolved again as that
 * agent, with its system prompt, tools, model and rules, and the run's own settings as before except
 * the ones that name its first agent's tools and agents (`tools`, `system`, `agents`). The run then
 * continues as new, in the same workflow, with the transcript so far under the new agent's system
 * prompt and the handoff recorded; its iterations, usage and time go on counting. Never returns.
 */
export async function handOff(
  input: AgentLoopInput,
  handoff: { to: string; callId: string },
  state: Omit<Continuation, 'messages'>,
  messages: readonly ChatMessage[],
): Promise<never> {
  const { tools: _tools, system: _system, agents: _agents, ...kept } = input;
  const next = { ...kept, agent: handoff.to };
  const run = await resolveRun(next);
  const record: HandoffRecord = {
    from: state.run.agent,
    to: run.agent,
    iteration: state.iteration,
    callId: handoff.callId,
  };
  const handoffs = [...state.handoffs, record];
  const [first, ...rest] = messages;
  const transcript: ChatMessage[] = [
    { role: 'system', content: run.system },
    ...(first?.role === 'system' ? rest : messages),
  ];
  return continueChain(next, { ...state, run, messages: transcript, handoffs });
}
