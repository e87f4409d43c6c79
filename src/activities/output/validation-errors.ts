import type { ErrorObject } from 'ajv/dist/2020';

/** At most this many problems go back to the model (and into `outputErrors`): the first ones say enough. */
export const MAX_OUTPUT_ERRORS = 20;

/**
 * ajv's errors as short lines a model can act on, one per problem, each naming where it is from
 * `output`: `output.amount: expected number, got string`, `output.lines[0].sku: missing`,
 * `output.note: not allowed`. Duplicates are dropped.
 */
export function validationErrors(errors: readonly ErrorObject[], value: unknown): string[] {
  const lines = errors.map((error) => describe(error, value));
  return [...new Set(lines)].slice(0, MAX_OUTPUT_ERRORS);
}

function describe(error: ErrorObject, value: unknown): string {
  const segments = pointerSegments(error.instancePath);
  const path = pathOf(segments);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${pathOf([...segments, String(params.missingProperty)])}: missing`;
    case 'additionalProperties':
      return `${pathOf([...segments, String(params.additionalProperty)])}: not allowed`;
    case 'type': {
      const expected = String(params.type).split(',').join(' or ');
      return `${path}: expected ${expected}, got ${typeName(at(value, segments))}`;
    }
    case 'enum':
      return `${path}: expected one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${path}: expected ${JSON.stringify(params.allowedValue)}`;
    case 'format':
      return `${path}: expected a string of format "${String(params.format)}"`;
    default:
      return `${path}: ${error.message ?? `fails "${error.keyword}"`}`;
  }
}

/** The segments of a JSON Pointer (`/lines/0/sku`), unescaped. */
function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** `output.lines[0].sku`: indices in brackets, names that are not identifiers quoted. */
function pathOf(segments: readonly string[]): string {
  return segments.reduce((path, segment) => {
    if (/^\d+$/.test(segment)) return `${path}[${segment}]`;
    return /^[A-Za-z_$][\w$]*$/.test(segment) ? `${path}.${segment}` : `${path}[${JSON.stringify(segment)}]`;
  }, 'output');
}

function at(value: unknown, segments: readonly string[]): unknown {
  let node = value;
  for (const segment of segments) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isInteger(value)) return 'integer';
  return typeof value;
}
