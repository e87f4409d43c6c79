import { parseJson, parseLenient, readJsonAt } from '../model/lenient-json';

/**
 * Reading a candidate final answer as JSON, conservatively: the whole text, else the body of its one
 * ```` ```json ```` fence (or a fence of no language), else the one JSON object or array in its
 * prose. Two fences, or two JSON values in the prose, are a problem for the model to fix, never a
 * guess. Inside a fence or the prose, JSON is read leniently (`lenient-json.ts`: trailing commas,
 * comments), but it must be closed.
 */
export type AnswerRead = { value: unknown } | { error: string };

const FENCE = /```([\w-]*)[ \t]*\r?\n([\s\S]*?)```/g;

/** The JSON value of a candidate answer, or why none could be read (in words a model can act on). */
export function readAnswer(text: string): AnswerRead {
  const s = text.trim();
  if (s === '') return { error: 'output: the final answer is empty; it must be a JSON value' };
  const whole = parseJson(s);
  if ('value' in whole) return whole;

  const fences = [...s.matchAll(FENCE)].filter((match) => match[1] === '' || /^json/i.test(match[1]));
  if (fences.length > 1) {
    return { error: `output: the reply holds ${fences.length} JSON blocks; send the final answer as one JSON value` };
  }
  if (fences.length === 1) {
    const body = parseLenient(fences[0][2].trim());
    return 'value' in body ? body : { error: `output: ${body.error}` };
  }

  const values = jsonInProse(s);
  if (values.length === 1) return { value: values[0] };
  if (values.length > 1) {
    return { error: `output: the reply holds ${values.length} JSON values; send the final answer as one JSON value` };
  }
  return { error: 'output: the final answer is not JSON; it must be a JSON value that matches the schema' };
}

/** The closed JSON objects and arrays in `s`, outermost only, in order. */
function jsonInProse(s: string): unknown[] {
  const values: unknown[] = [];
  for (let p = 0; p < s.length; p++) {
    if (s[p] !== '{' && s[p] !== '[') continue;
    const read = readJsonAt(s, p);
    if (read.end === undefined) continue;
    const closed = parseLenient(s.slice(p, read.end));
    if (!('value' in closed) || typeof closed.value !== 'object' || closed.value === null) continue;
    values.push(closed.value);
    p = read.end - 1;
  }
  return values;
}
