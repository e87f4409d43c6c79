import { proxyLocalActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import { CHECK_OUTPUT_ACTIVITY_OPTIONS } from '../contract/activity-options';
import type { AgentLoopResult } from '../contract/agent-loop';
import { outputRepairNote, type OutputSpec } from '../contract/output/output';

const { checkOutput } = proxyLocalActivities<ReturnType<typeof createActivities>>(CHECK_OUTPUT_ACTIVITY_OPTIONS);

/** What a result says of its output: the value, or why there is none. */
export type OutputFields = Pick<AgentLoopResult, 'output' | 'outputErrors'>;

/** What to do with a candidate final answer. */
export type Verdict =
  | { kind: 'accept'; fields: OutputFields }
  /** The answer goes back to the model with `note` (a repair turn). */
  | { kind: 'repair'; note: string }
  /** No repairs left: the run ends `invalid_output`. */
  | { kind: 'invalid'; fields: OutputFields };

/**
 * A run's typed output. Without an output schema every answer is accepted as it is, and nothing is
 * called. With one, each candidate final answer (a reply's text, `task_complete`'s result, a JSON
 * plan's answer) is checked by the `checkOutput` local activity, since validation needs ajv, which
 * workflow code does not load; a local activity costs a marker in the history, not a trip through
 * the server. An answer that does not match goes back to the model at most `repairs` times in the
 * run (its chain of runs, across hand-overs), then the run ends `invalid_output`.
 */
export class TypedOutput {
  constructor(
    private readonly spec: OutputSpec | undefined,
    /** Repair turns the run has had (a hand-over carries them). */
    public repairsUsed = 0,
  ) {}

  /** A candidate final answer of a run that may go on: accept it, send it back, or give up. */
  async judge(answer: string): Promise<Verdict> {
    if (!this.spec) return { kind: 'accept', fields: {} };
    const checked = await checkOutput.executeWithOptions(
      { ...CHECK_OUTPUT_ACTIVITY_OPTIONS, summary: 'check output' },
      [{ schema: this.spec.schema, text: answer }],
    );
    if (checked.ok) return { kind: 'accept', fields: { output: checked.value } };
    if (this.repairsUsed < this.spec.repairs) {
      this.repairsUsed++;
      return { kind: 'repair', note: outputRepairNote(checked.errors, this.spec.schema) };
    }
    return { kind: 'invalid', fields: { outputErrors: checked.errors } };
  }

  /** The answer of a run a limit ended (its status stays): its output when it matches, else why not; never a repair. */
  async ofLimited(answer: string): Promise<OutputFields> {
    if (!this.spec) return {};
    const verdict = await new TypedOutput(this.spec, this.spec.repairs).judge(answer);
    return verdict.kind === 'repair' ? {} : verdict.fields;
  }
}
