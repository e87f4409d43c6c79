import type { ToolCallMessagePart } from '../../contract/agent-loop';

type JsonObject = Record<string, unknown>;

/** What one block of the reply holds: candidate calls, and where the block ends. */
interface Block {
  values: unknown[];
  end: number;
}

/** The keys a call object may have; anything else makes it data, not a call. */
const CALL_KEYS = new Set(['name', 'arguments', 'parameters', 'id', 'type']);
const WRAPPER_KEYS = new Set(['id', 'type', 'function']);

const FENCE_OPEN = /```(?:json|tool_call|tool)?[ \t]*\r?\n/iy;
const FUNCTION_OPEN = /<function=([\w.-]+)>/y;
const PARAMETER = /\s*<parameter=([\w.-]+)>([\s\S]*?)<\/parameter>/y;
const TAG_OPEN = /<(?:tool_call>|tools>|function=)/;

/**
 * Reads tool calls that a model wrote as text in its reply's `content` instead of the API's
 * `tool_calls`, as small local models behind their own chat template often do. Returns the calls
 * (in order, each with an id from `newId` and its arguments re-serialized with `JSON.stringify`)
 * only when the content consists of calls in these forms, any number of blocks separated by
 * whitespace:
 * - a fence (```` ```json ````, ```` ```tool_call ````, ```` ```tool ```` or no language) around one
 *   or more call objects (separated by whitespace) or arrays of them;
 * - `<tool_call>{...}</tool_call>`, the closing tag optional at the very end of the reply; its body
 *   may also be a `<function=...>` block;
 * - `<tools>` around one or more call objects, separated by whitespace;
 * - `<function=name>{...arguments...}</function>`, or `<function=name>` with
 *   `<parameter=key>value</parameter>` lines (values are kept as strings, without the newline that
 *   opens and closes them);
 * - a bare call object or an array of them, with nothing else around.
 * A call object is `{"name", "arguments" | "parameters", "id"?, "type"?: "function"}` (`"function"`
 * may stand for `"name"`) or the OpenAI shape `{"type": "function", "function": {...}, "id"?}`; its arguments are a JSON object or a JSON
 * string of one, and may be left out only when `name` is its sole key.
 *
 * A `<tool_response>` the model wrote after its calls, and all that follows it, is its invention
 * of their results and is dropped: the calls run and their real results go back to it.
 *
 * Prose is allowed only before tagged blocks (`<tool_call>`, `<tools>`, `<function=`) and comes
 * back as `text` (trimmed, null when empty); before a fence or bare JSON, prose means the model is
 * answering and quoting JSON. Returns `undefined`, leaving the reply an answer, when anything else
 * follows or surrounds the blocks, a call names a tool not in `offered`, a call object has other
 * keys, arguments are not an object, or any JSON fails a strict `JSON.parse` (no repair of trailing
 * commas or single quotes).
 */
export function textToolCalls(
  content: string,
  offered: ReadonlySet<string>,
  newId: () => string,
): { calls: ToolCallMessagePart[]; text: string | null } | undefined {
  // What a model writes after its calls as their result is invented (the tools have not run): cut.
  const invented = content.indexOf('<tool_response>');
  const s = (invented > 0 ? content.slice(0, invented) : content).trim();
  let values = readBlocks(s, 0, false);
  let text: string | null = null;
  const tag = s.search(TAG_OPEN);
  if (values === undefined && tag > 0) {
    values = readBlocks(s, tag, true);
    text = s.slice(0, tag).trim() || null;
  }
  if (values === undefined || values.length === 0) return undefined;
  const found: ToolCallMessagePart['function'][] = [];
  for (const value of values) {
    const call = toCall(value, offered);
    if (call === undefined) return undefined;
    found.push(call);
  }
  return { calls: found.map((call) => ({ id: newId(), type: 'function', function: call })), text };
}

/** The candidate calls of the blocks from `start` to the end of `s`, or undefined if anything else is there. */
function readBlocks(s: string, start: number, taggedOnly: boolean): unknown[] | undefined {
  const values: unknown[] = [];
  for (let p = skipSpace(s, start); p < s.length; p = skipSpace(s, p)) {
    const block = readBlock(s, p, taggedOnly);
    if (block === undefined) return undefined;
    values.push(...block.values);
    p = block.end;
  }
  return values;
}

/** The block that opens at `p`: tagged, or (unless `taggedOnly`) a fence or bare JSON. */
function readBlock(s: string, p: number, taggedOnly: boolean): Block | undefined {
  if (s.startsWith('<tool_call>', p)) {
    const body = skipSpace(s, p + '<tool_call>'.length);
    const inner = s.startsWith('<function=', body) ? readFunction(s, body) : readJson(s, body);
    if (inner === undefined) return undefined;
    const end = skipSpace(s, inner.end);
    if (end === s.length) return inner;
    return closeTag(s, inner, '</tool_call>');
  }
  if (s.startsWith('<tools>', p)) {
    const json = readJsonSeries(s, skipSpace(s, p + '<tools>'.length));
    return json && closeTag(s, json, '</tools>');
  }
  if (s.startsWith('<function=', p)) return readFunction(s, p);
  if (taggedOnly) return undefined;
  FENCE_OPEN.lastIndex = p;
  if (FENCE_OPEN.test(s)) {
    const json = readJsonSeries(s, skipSpace(s, FENCE_OPEN.lastIndex));
    return json && closeTag(s, json, '```');
  }
  return readJson(s, p);
}

/** `<function=name>` with a JSON arguments object or `<parameter=key>` lines, then `</function>`. */
function readFunction(s: string, p: number): Block | undefined {
  FUNCTION_OPEN.lastIndex = p;
  const open = FUNCTION_OPEN.exec(s);
  if (open === null) return undefined;
  const name = open[1];
  let end = skipSpace(s, FUNCTION_OPEN.lastIndex);
  let args: unknown;
  if (s[end] === '{') {
    const json = readJson(s, end);
    if (json === undefined) return undefined;
    [args, end] = [json.values[0], json.end];
  } else {
    const params = new Map<string, string>();
    PARAMETER.lastIndex = end;
    for (let m = PARAMETER.exec(s); m !== null; m = PARAMETER.exec(s)) {
      if (params.has(m[1])) return undefined;
      params.set(m[1], m[2].replace(/^\r?\n|\r?\n$/g, ''));
      end = PARAMETER.lastIndex;
    }
    args = Object.fromEntries(params);
  }
  return closeTag(s, { values: [{ name, arguments: args }], end }, '</function>');
}

/** The block extended past `tag`, which must follow it after whitespace. */
function closeTag(s: string, block: Block, tag: string): Block | undefined {
  const p = skipSpace(s, block.end);
  return s.startsWith(tag, p) ? { values: block.values, end: p + tag.length } : undefined;
}

/** The JSON object or array that opens at `p`, an array standing for its elements. */
function readJson(s: string, p: number): Block | undefined {
  const end = jsonEnd(s, p);
  if (end < 0) return undefined;
  const value = parseJson(s.slice(p, end));
  if (value === undefined) return undefined;
  return { values: Array.isArray(value) ? value : [value], end };
}

/** One or more JSON objects or arrays from `p` on, separated by whitespace. */
function readJsonSeries(s: string, p: number): Block | undefined {
  const values: unknown[] = [];
  let end = p;
  while (s[end] === '{' || s[end] === '[') {
    const json = readJson(s, end);
    if (json === undefined) return undefined;
    values.push(...json.values);
    end = skipSpace(s, json.end);
  }
  return values.length > 0 ? { values, end } : undefined;
}

/** Where the object or array opening at `start` closes, minding strings and escapes; -1 if it does not. */
function jsonEnd(s: string, start: number): number {
  if (s[start] !== '{' && s[start] !== '[') return -1;
  let depth = 0;
  let inString = false;
  for (let i = start; i < s.length; i++) {
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

/** A call object's name and arguments, or undefined when it is not a call to an offered tool. */
function toCall(value: unknown, offered: ReadonlySet<string>): ToolCallMessagePart['function'] | undefined {
  if (!isObject(value)) return undefined;
  if ('function' in value && typeof value.function === 'string') {
    // `{"function": "name", "arguments": {...}}`, as small models also write it.
    const { function: name, ...rest } = value;
    return 'name' in rest ? undefined : toCall({ name, ...rest }, offered);
  }
  if ('function' in value) {
    return hasOnly(value, WRAPPER_KEYS) ? toCall(value.function, offered) : undefined;
  }
  if (!hasOnly(value, CALL_KEYS)) return undefined;
  if (typeof value.name !== 'string' || !offered.has(value.name)) return undefined;
  if ('arguments' in value && 'parameters' in value) return undefined;
  const raw =
    'arguments' in value
      ? value.arguments
      : 'parameters' in value
        ? value.parameters
        : Object.keys(value).length === 1
          ? {}
          : undefined;
  const args = typeof raw === 'string' ? parseJson(raw) : raw;
  return isObject(args) ? { name: value.name, arguments: JSON.stringify(args) } : undefined;
}

/** Only keys from `allowed`, and `type`, if there, is "function". */
function hasOnly(value: JsonObject, allowed: ReadonlySet<string>): boolean {
  return Object.keys(value).every((key) => allowed.has(key)) && (!('type' in value) || value.type === 'function');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function skipSpace(s: string, p: number): number {
  while (p < s.length && /\s/.test(s[p])) p++;
  return p;
}
