import { defineUpdate } from '@temporalio/workflow';
import { shellWord } from '../command-lines';

/**
 * Unknown outcomes (docs/effects.md#unknown-outcomes): a `write` call whose attempt may have acted
 * before it was cut off (it timed out, or its worker stopped heartbeating) is not retried blindly.
 * Its tool's `reconcile` says whether the effect happened; without one, a person says which. No zod
 * here: workflow code imports it.
 */

/**
 * What a person says of a call that may or may not have run: it `happened` (the call completes with
 * the result they give), run it `again`, or `give_up` (the call fails, and the model is told).
 */
export type OutcomeChoice = 'happened' | 'again' | 'give_up';

/** The choices, in the order a person is offered them. */
export const OUTCOME_CHOICES = ['happened', 'again', 'give_up'] as const satisfies readonly OutcomeChoice[];

/** The `outcome` update's decision: the choice, the result when it happened, and who decides. */
export interface OutcomeDecision {
  choice: OutcomeChoice;
  /** What the model reads as the call's result, when it happened (default: a line saying a person confirmed it). */
  result?: string;
  /** Who decides (`unknown` when not given). */
  by?: string;
}

/**
 * A `write` call waiting for a person to say whether it acted: its tool, arguments, iteration, when
 * it began to wait, why its outcome is unknown (`why`: how its attempt ended) and who may decide
 * (the call's approvers, when it waited for approval with some; none: anyone who may reach the run).
 */
export interface PendingOutcome {
  callId: string;
  tool: string;
  args: Record<string, unknown>;
  iteration: number;
  since: string;
  why: string;
  approvers?: { label: string; names: string[] };
}

/**
 * How a call whose attempt may have acted was settled (`ToolCallRecord.outcome`): `reconciled`, its
 * tool's `reconcile` found the effect and the call completed with its result; `confirmed`, a person
 * said it happened and gave its result; `rerun`, it ran again (`reconcile` found nothing, or a
 * person said so); `given_up`, a person gave up on it and the call failed. `by` is who said so
 * (`reconcile` for the tool's own check), `why` how the attempt ended, `at` when (ISO 8601).
 */
export interface CallOutcome {
  path: 'reconciled' | 'confirmed' | 'rerun' | 'given_up';
  by: string;
  at: string;
  why: string;
}

/** What the `outcome` update answers: which call it settled, and how. */
export interface OutcomeSettled {
  callId: string;
  tool: string;
  choice: OutcomeChoice;
}

/**
 * Settles a call that waits as an unknown outcome (by its call id). Refused when no call of that id
 * waits so, when the choice is not one of `OUTCOME_CHOICES` or a result comes with another choice
 * than `happened`, and (`DecisionNotAllowed`) when `by` is not among the call's approvers.
 */
export const outcomeUpdate = defineUpdate<OutcomeSettled, [callId: string, decision: OutcomeDecision]>('outcome');

/** The command that settles a call of unknown outcome, with its three choices. */
export function outcomeCommandLine(workflowId: string, callId: string): string {
  return `waveloop outcome ${shellWord(workflowId)} ${shellWord(callId)} --happened [--result "…"] | --again | --give-up`;
}

/** The line a person reads: `pay_invoice(invoice=INV-2, amount=4000) may or may not have run`. */
export function unknownOutcomeLine(tool: string, args: Record<string, unknown>): string {
  const shown = Object.entries(args)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ');
  return `${tool}(${shown}) may or may not have run`;
}
