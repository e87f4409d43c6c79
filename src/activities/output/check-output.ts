import type { CheckOutputInput, CheckOutputResult } from '../../contract/output/output';
import { compileOutputSchema } from '../../contract/output/schema';
import { readAnswer } from './read-answer';
import { validationErrors } from './validation-errors';

/**
 * `checkOutput`: whether a candidate final answer is JSON that matches the run's output schema.
 * A local activity, called only when a run has an output schema and a candidate answer: it reads
 * the text leniently (`readAnswer`), validates it with ajv, and says what is wrong in lines a model
 * can act on. Pure and deterministic, so a retry or a replay decides alike; it never throws for the
 * model's answer (a schema that does not compile was refused when the run started).
 */
export async function checkOutput({ schema, text }: CheckOutputInput): Promise<CheckOutputResult> {
  const read = readAnswer(text);
  if ('error' in read) return { ok: false, errors: [read.error] };
  const validate = compileOutputSchema(schema);
  if (validate(read.value)) return { ok: true, value: read.value };
  return { ok: false, errors: validationErrors(validate.errors ?? [], read.value) };
}
