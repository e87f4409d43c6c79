import addFormats from 'ajv-formats';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020';
import { z } from 'zod';

/**
 * The JSON Schema a run's final answer must match (`AgentLoopInput.output`): checking that one is a
 * schema, and compiling it with ajv (JSON Schema 2020-12, which is what `z.toJSONSchema` writes;
 * `format`s such as `date` and `email` are checked). Never imported by workflow code: validation
 * runs on the worker (the `checkOutput` activity) and in clients.
 */

/** Compiled validators by schema text: a run checks each of its candidate answers against the same schema. */
const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 200;

function newAjv(): Ajv2020 {
  // `strict: false`: a schema written for another tool may carry keywords ajv does not know (`example`, `x-…`).
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv;
}
let ajv: Ajv2020 | undefined;

/**
 * The validator of `schema`; throws when it is not a JSON Schema ajv can compile. A `$schema` that
 * names an older draft is dropped: the keywords of draft 7 mean the same in 2020-12, but for `items`
 * given as an array (use `prefixItems`).
 */
export function compileOutputSchema(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  const known = compiled.get(key);
  if (known) return known;
  ajv ??= newAjv();
  const { $schema, ...rest } = schema;
  const keep = typeof $schema === 'string' && $schema.includes('2020-12');
  const validate = ajv.compile(keep ? schema : rest);
  if (compiled.size >= MAX_COMPILED) {
    compiled.clear();
    ajv = newAjv();
  }
  compiled.set(key, validate);
  return validate;
}

const NOT_AN_OBJECT = 'the output schema must be a JSON Schema object, such as {"type": "object", "properties": {…}}';

/** Why `schema` is not a usable output schema, or undefined when it is one. */
export function outputSchemaProblem(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return NOT_AN_OBJECT;
  }
  try {
    compileOutputSchema(schema as Record<string, unknown>);
    return undefined;
  } catch (err) {
    return `the output schema is not a valid JSON Schema: ${(err as Error).message}`;
  }
}

/** `AgentLoopInput.output` and `GoalTreeInput.output`: a JSON Schema object that ajv compiles. */
export const OutputSchemaSchema = z.record(z.string(), z.unknown(), { error: NOT_AN_OBJECT }).check((ctx) => {
  const problem = outputSchemaProblem(ctx.value);
  if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
});
