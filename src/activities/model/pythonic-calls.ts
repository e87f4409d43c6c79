import { skipSpace } from './lenient-json';

/**
 * Llama 3.2's pythonic tool calls (the lightweight models' documented form):
 * `[get_weather(city="Paris"), calculator(expression='2+2')]`, each argument a keyword with a
 * Python literal: a string in either quotes, a number, `True`/`False`/`None`, or a JSON list or object.
 */

/** Where a pythonic call list may open: `[name(`. */
export const PYTHONIC_OPEN = /\[\s*([A-Za-z_][\w.]*)\s*\(/y;

const NAME = /\s*([A-Za-z_][\w.]*)\s*\(\s*/y;
const KEYWORD = /\s*([A-Za-z_]\w*)\s*=\s*/y;
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERALS: Record<string, unknown> = {
  True: true,
  False: false,
  None: null,
  true: true,
  false: false,
  null: null,
};

/** The calls of the list that opens at `p`, and where it ends; undefined when it is not one. */
export function readPythonicCalls(
  s: string,
  p: number,
): { values: { name: string; arguments: Record<string, unknown> }[]; end: number } | undefined {
  if (s[p] !== '[') return undefined;
  const values: { name: string; arguments: Record<string, unknown> }[] = [];
  let i = p + 1;
  for (;;) {
    NAME.lastIndex = i;
    const name = NAME.exec(s);
    if (name === null) return undefined;
    i = NAME.lastIndex;
    const args: Record<string, unknown> = {};
    while (s[i] !== ')') {
      KEYWORD.lastIndex = i;
      const key = KEYWORD.exec(s);
      if (key === null) return undefined;
      const value = readLiteral(s, KEYWORD.lastIndex);
      if (value === undefined) return undefined;
      args[key[1]] = value.value;
      i = skipSpace(s, value.end);
      if (s[i] === ',') i = skipSpace(s, i + 1);
      else if (s[i] !== ')') return undefined;
    }
    values.push({ name: name[1], arguments: args });
    i = skipSpace(s, i + 1);
    if (s[i] === ',') i++;
    else if (s[i] === ']') return { values, end: i + 1 };
    else return undefined;
  }
}

function readLiteral(s: string, p: number): { value: unknown; end: number } | undefined {
  const quote = s[p];
  if (quote === '"' || quote === "'") {
    let text = '';
    for (let i = p + 1; i < s.length; i++) {
      if (s[i] === '\\' && i + 1 < s.length) text += unescape(s[++i]);
      else if (s[i] === quote) return { value: text, end: i + 1 };
      else text += s[i];
    }
    return undefined;
  }
  if (s[p] === '{' || s[p] === '[') {
    const end = closing(s, p);
    if (end < 0) return undefined;
    try {
      return { value: JSON.parse(s.slice(p, end)) as unknown, end };
    } catch {
      return undefined;
    }
  }
  NUMBER.lastIndex = p;
  const number = NUMBER.exec(s);
  if (number) return { value: Number(number[0]), end: NUMBER.lastIndex };
  const word = /^[A-Za-z]+/.exec(s.slice(p, p + 5))?.[0];
  return word !== undefined && word in LITERALS ? { value: LITERALS[word], end: p + word.length } : undefined;
}

function unescape(c: string): string {
  return c === 'n' ? '\n' : c === 't' ? '\t' : c;
}

/** Where the JSON list or object opening at `p` closes, minding strings; -1 if it does not. */
function closing(s: string, p: number): number {
  let depth = 0;
  let inString = false;
  for (let i = p; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && --depth === 0) return i + 1;
  }
  return -1;
}
