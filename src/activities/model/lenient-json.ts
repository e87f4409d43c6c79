/**
 * Reading the JSON of a tool call a model wrote as text, leniently where its intent is clear:
 * doubled braces (`{{"name": …}}`, as a template's escaping leaves them), `// …` comments, trailing
 * commas, and an object left unclosed where the call ends. Nothing else is repaired: single quotes
 * and unquoted keys stay errors.
 */

/** What a JSON value at a position of a text read as: the value and where it ends, or why it could not be read. */
export type JsonRead = { value: unknown; end: number } | { error: string; end?: undefined };

/** Where a call's JSON may stop short of its closing braces: the end of the reply or the tag that closes the call. */
const CLOSERS = ['</tool_call>', '```', '</function>', '</tools>', '<|eom_id|>', '<|eot_id|>'];

/** The JSON object or array that opens at `p` in `s`, read leniently. */
export function readJsonAt(s: string, p: number): JsonRead {
  if (s[p] !== '{' && s[p] !== '[') return { error: 'no JSON object where the call should be' };
  const scan = scanJson(s, p, s.length);
  if (scan.end !== undefined) {
    const parsed = parseLenient(s.slice(p, scan.end));
    return 'value' in parsed ? { value: parsed.value, end: scan.end } : parsed;
  }
  // Not closed: complete it with the closers it lacks, up to the first place a call may end.
  for (const stop of stopsAfter(s, p)) {
    const open = scanJson(s, p, stop);
    if (open.end !== undefined || open.inString || open.stack.length === 0) continue;
    const text = s.slice(p, stop).trimEnd().replace(/,$/, '') + open.stack.reverse().join('');
    const parsed = parseLenient(text);
    if ('value' in parsed) return { value: parsed.value, end: stop };
  }
  return { error: 'the JSON is not closed' };
}

/** Parses `text` as JSON; failing that, with doubled braces made single, comments and trailing commas dropped. */
export function parseLenient(text: string): { value: unknown } | { error: string } {
  const strict = parseJson(text);
  if ('value' in strict) return strict;
  const bases = [text];
  if (text.startsWith('{{')) {
    bases.push(unwrapDoubled(text), undoubled(text));
  }
  for (const base of bases) {
    for (const variant of [base, withoutTrailingCommas(withoutComments(base))]) {
      if (variant === text) continue;
      const parsed = parseJson(variant);
      if ('value' in parsed) return parsed;
    }
  }
  return strict;
}

/** `JSON.parse`, its error as a message. */
export function parseJson(text: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (err) {
    return { error: `the JSON is not valid (${(err as Error).message})` };
  }
}

/** `{{…}}` with one pair of outer braces taken off for each doubled one. */
function unwrapDoubled(text: string): string {
  let t = text.trim();
  while (t.startsWith('{{') && t.endsWith('}}')) t = t.slice(1, -1).trim();
  return t;
}

/** `text` with every doubled brace outside its strings made single. */
function undoubled(text: string): string {
  return outsideStrings(text, (t, i) =>
    t.startsWith('{{', i) || t.startsWith('}}', i) ? { take: 2, put: t[i] } : undefined,
  );
}

const TRAILING_COMMA = /,\s*[}\]]/y;

function withoutTrailingCommas(text: string): string {
  return outsideStrings(text, (t, i) => {
    TRAILING_COMMA.lastIndex = i;
    return TRAILING_COMMA.test(t) ? { take: 1, put: '' } : undefined;
  });
}

/** `text` without `// …` line comments. */
function withoutComments(text: string): string {
  return outsideStrings(text, (t, i) => {
    if (!t.startsWith('//', i)) return undefined;
    const eol = t.indexOf('\n', i);
    return { take: (eol < 0 ? t.length : eol) - i, put: '' };
  });
}

/** `text` with, outside its strings, what `edit` replaces: `take` characters at `i` become `put`. */
function outsideStrings(
  text: string,
  edit: (text: string, i: number) => { take: number; put: string } | undefined,
): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    const change = inString ? undefined : edit(text, i);
    if (change) {
      out += change.put;
      i += change.take - 1;
    } else out += c;
  }
  return out;
}

/** Where the JSON opening at `start` closes before `limit` (`end`), or what is still open there. */
function scanJson(
  s: string,
  start: number,
  limit: number,
): { end: number; inString?: undefined; stack?: undefined } | { end?: undefined; inString: boolean; stack: string[] } {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < limit; i++) {
    const c = s[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') stack.push('}');
    else if (c === '[') stack.push(']');
    else if (c === '}' || c === ']') {
      stack.pop();
      if (stack.length === 0) return { end: i + 1 };
    }
  }
  return { inString, stack };
}

/** The places after `p` where a call's text may end, nearest first: the tags that close a call, and the reply's end. */
function stopsAfter(s: string, p: number): number[] {
  const stops = CLOSERS.map((tag) => s.indexOf(tag, p)).filter((i) => i > p);
  return [...new Set([...stops.sort((a, b) => a - b), s.length])];
}

/** The first position at or after `p` in `s` that is not whitespace (`s.length` when none is). */
export function skipSpace(s: string, p: number): number {
  while (p < s.length && /\s/.test(s[p])) p++;
  return p;
}
