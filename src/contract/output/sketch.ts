/**
 * A JSON Schema drawn as the value it asks for, with a placeholder in angle brackets where each
 * value goes: `{"amount": <number>, "currency": <one of "EUR", "USD">}`. Small models given a bare
 * JSON Schema often answer with the schema itself (`{"type": "object", "properties": …}`); the
 * sketch shows the shape of the answer instead. A sketch is not JSON, so a model that copies it as
 * it is gets a repair turn rather than a placeholder accepted as its answer.
 */
export function outputSketch(schema: unknown, depth = 0): string {
  if (typeof schema !== 'object' || schema === null || depth > 4) return '<any>';
  const s = schema as Record<string, unknown>;
  if ('const' in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return `<one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}>`;
  const choices = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(choices)) return `<one of: ${choices.map((c) => outputSketch(c, depth + 1)).join(' | ')}>`;
  const type = Array.isArray(s.type) ? s.type.join(' or ') : s.type;
  if (type === 'object' || (type === undefined && typeof s.properties === 'object')) {
    const properties = Object.entries((s.properties ?? {}) as Record<string, unknown>);
    if (properties.length === 0) return '<object>';
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    const fields = properties.map(
      ([key, value]) =>
        `${JSON.stringify(key)}: ${outputSketch(value, depth + 1)}${required.has(key) ? '' : ' (optional)'}`,
    );
    return `{${fields.join(', ')}}`;
  }
  if (type === 'array') return `[${outputSketch(s.items, depth + 1)}, …]`;
  if (typeof type === 'string') return `<${type}${typeof s.format === 'string' ? `: ${s.format}` : ''}>`;
  return '<any>';
}
