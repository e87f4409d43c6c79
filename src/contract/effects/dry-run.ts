/**
 * Dry runs (docs/effects.md#dry-runs): `read` tools run for real; a call of any other effect is held
 * back, answered by its tool's `dryRun` or a stub, and never waits for approval. No zod here:
 * workflow code imports it.
 */

/** The memo field that marks a dry run (`true`): `waveloop list`, the inbox and the Web UI read it. */
export const DRY_RUN_MEMO = 'dryRun';

/** A call a dry run held back: its iteration, call id, tool and arguments (sensitive values masked). */
export interface HeldBackCall {
  iteration: number;
  callId: string;
  tool: string;
  args: Record<string, unknown>;
}

/** What the model reads of a held-back call whose tool has no `dryRun`. */
export function dryRunStub(tool: string, args: Record<string, unknown>): string {
  return `dry run: ${tool} was not called; it would have been called with ${JSON.stringify(args)}.`;
}
