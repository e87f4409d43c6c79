import { makeContinueAsNewFunc, workflowInfo } from '@temporalio/workflow';
import type { ForkPoint, ResolvedRun } from '../contract/activity-io';
import type { AgentLoopInput, ChatMessage, WaveRecord } from '../contract/agent-loop';
import type { ForkedFrom } from '../contract/fork/fork';
import type { HandoffRecord } from '../contract/handoff';
import { ZERO_USAGE, type Usage } from '../contract/model/usage';

/**
 * What a run hands over to the next run of its chain when it continues as new: the whole of its
 * state, in one object. Every field is required (`undefined` where a run has none), so the one place
 * that makes it (`AgentRun.continuation`) cannot leave a field out without a type error, and the one
 * place that reads it (`startingState`) gets every field back.
 */
export interface Continuation {
  run: ResolvedRun;
  messages: ChatMessage[];
  waves: WaveRecord[];
  usage: Usage;
  iteration: number;
  /** The iteration the current turn of a conversation started after. */
  turnStart: number;
  /** The last thing the model said: the answer of a run stopped by its iteration limit. */
  lastText: string;
  /** What the latest model call used (the measure of the transcript it saw). */
  lastCall: Usage | undefined;
  /** How many hand-overs happened before this run. */
  handOvers: number;
  /** When the first run of the chain started (epoch ms), for `timeoutSeconds`. */
  startedAtMs: number;
  /** Repair turns the chain has had for answers that did not match its output schema. */
  outputRepairs: number;
  /** Where the chain was forked from, when it was. */
  forkedFrom: ForkedFrom | undefined;
  /** The handoffs so far: `run` is the agent handed over to last. */
  handoffs: HandoffRecord[];
}

/** A run's starting state: what it was handed over (`carried`), else a fresh start, from a fork's point when it is one. */
export type StartingState = Omit<Continuation, 'run' | 'messages'> & {
  /** Whether the run was handed over (its transcript is already pruned). */
  handedOver: boolean;
};

/**
 * The state a run starts from: everything `carried` holds, or, for the first run of a chain, zero
 * usage at iteration 0 (a fork's iteration, when forked) starting now.
 */
export function startingState(
  carried: Continuation | undefined,
  fresh: { startedAtMs: number; forked?: ForkPoint },
): StartingState {
  if (carried) {
    const { run: _run, messages: _messages, ...state } = carried;
    return { ...state, handedOver: true };
  }
  const { forked } = fresh;
  return {
    waves: [],
    usage: ZERO_USAGE,
    iteration: forked?.iteration ?? 0,
    turnStart: 0,
    lastText: '',
    lastCall: undefined,
    handOvers: 0,
    startedAtMs: fresh.startedAtMs,
    outputRepairs: 0,
    forkedFrom: forked && { workflowId: forked.workflowId, runId: forked.runId, iteration: forked.iteration },
    handoffs: [],
    handedOver: false,
  };
}

/**
 * Continues the run as new with `carried`: a fresh history for the same workflow, which goes on where
 * this run stopped. A root run moves to the newest deployment version of the worker; a child keeps
 * its parent's.
 */
export function continueChain(input: AgentLoopInput, carried: Continuation): Promise<never> {
  const initialVersioningBehavior = workflowInfo().parent ? undefined : 'AUTO_UPGRADE';
  return makeContinueAsNewFunc<(input: AgentLoopInput, carried?: Continuation) => Promise<unknown>>({
    initialVersioningBehavior,
  })(input, carried);
}
