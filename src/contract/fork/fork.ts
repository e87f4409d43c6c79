/**
 * Forking a run: a new run that starts from another run's transcript as it stood after iteration N
 * (its model reply and its wave's results), whose tools do not run again. Workflow-safe (no zod:
 * the input's `fork` field is validated with `ForkSchema`, on the worker).
 */

/** Where a run was forked from: its memo's `forkedFrom` (`FORKED_FROM_MEMO`) and its `status`. */
export interface ForkedFrom {
  workflowId: string;
  /** The run of the source's chain (continue-as-new) that held the iteration. */
  runId: string;
  iteration: number;
}

/** The memo field of a forked run that says where it came from (`ForkedFrom`). */
export const FORKED_FROM_MEMO = 'forkedFrom';

/** Why a fork cannot start: no such run, an iteration out of range, a transcript that cannot be rebuilt. */
export class ForkRefusedError extends Error {
  override readonly name = 'ForkRefusedError';
}
