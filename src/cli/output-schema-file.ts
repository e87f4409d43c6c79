import * as fs from 'node:fs';
import { outputSchemaProblem } from '../contract/output/schema';
import { UsageError } from './errors';
import { resolvePath } from './io';

/**
 * `--output-schema <file.json>`: the JSON Schema a run's (or a goal tree's) final answer must
 * match, read from a file. A file that is missing, is not JSON or holds no usable JSON Schema is a
 * usage error (exit status 2), before anything starts.
 */
export function readOutputSchemaFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(resolvePath(file), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `--output-schema: cannot read ${file}${code === 'ENOENT' ? ': no such file' : ` (${(err as Error).message})`}.`,
    );
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--output-schema: ${file} is not JSON (${(err as Error).message}).`);
  }
  const problem = outputSchemaProblem(schema);
  if (problem) throw new UsageError(`--output-schema: ${file}: ${problem}.`);
  return schema as Record<string, unknown>;
}
