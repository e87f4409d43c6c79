import type { ToolCallMessagePart } from '../../contract/agent-loop';
import { parseJson, readJsonAt, skipSpace } from './lenient-json';
import { PYTHONIC_OPEN, readPythonicCalls } from './pythonic-calls';
import { CALL_MARKER, namedCallTools, unreadableCallProblem } from './tool-call-intent';

type JsonObject = Record<string, unknown>;

/** What one block of the reply holds: candidate calls, and where the block ends. */
interface Block {
  values: unknown[];
  end: number;
}

/** What reading a reply found: calls to run, a call it could not read (for a repair turn), or neither (an answer). */
export type TextToolCalls =
  | { calls: ToolCallMessagePart[]; text: string | null }
  | { unreadable: { tools: string[]; problem: string } }
  | undefined;

/** The keys a call object may have; anything else makes it data, not a call. */
const CALL_KEYS = new Set(['name', 'arguments', 'parameters', 'id', 'type']);
const WRAPPER_KEYS = new Set(['id', 'type', 'function']);

const FENCE_OPEN = /```[\w-]*[ \t]*\r?\n/y;
const FUNCTION_OPEN = /<function=([\w.-]+)>/y;
const PARAMETER = /\s*<parameter=([\w.-]+)>([\s\S]*?)<\/parameter>/y;
const MISTRAL_NAMED = /([\w.-]+)(?:\[CALL_ID\][\w-]*)?\[ARGS\]/y;
/** End-of-turn tokens some servers leave in the text. */
const END_TOKENS = /(?:\s*(?:<\|eom_id\|>|<\|eot_id\|>|<\|im_end\|>|<\/s>))+\s*$/;

/**
 * Reads tool calls that a model wrote as text in its reply's `content` instead of the API's
 * `tool_calls`, as small local models behind their own chat template often do. The forms, any
 * number of blocks separated by whitespace:
 * - a fence (```` ```json ```` or any language, the closing fence optional at the reply's end)
 *   around one or more call objects or arrays of them;
 * - Hermes/Qwen `<tool_call>{…}</tool_call>` (the closing tag optional), whose body may also be a
 *   `<function=…>` block; `<tools>` around call objects;
 * - Llama 3.x `<function=name>{…arguments…}</function>`, or with `<parameter=key>value</parameter>`
 *   lines (values kept as strings); `<|python_tag|>` before call objects (`;` may separate them);
 * - Mistral `[TOOL_CALLS] [{…}, …]`, or `[TOOL_CALLS]name[ARGS]{…}`;
 * - Llama 3.2's pythonic `[name(key=value, …), …]` (`pythonic-calls.ts`), bare or after `<|python_tag|>`;
 * - a bare call object or an array of them.
 * A call object is `{"name", "arguments" | "parameters", "id"?, "type"?: "function"}` (`"function"`
 * may stand for `"name"`) or the OpenAI shape `{"type": "function", "function": {...}, "id"?}`; its
 * arguments are a JSON object or a JSON string of one, and may be left out only when `name` is its
 * sole key. JSON is read leniently (`lenient-json.ts`): doubled braces, trailing commas, braces left
 * unclosed where the call ends.
 *
 * A `<tool_response>` the model wrote after its calls, and all that follows it, is its invention
 * of their results and is dropped. Prose before the first dialect marker, and prose after the calls,
 * is what the model said (`text`, trimmed, null when empty). A fence or bare JSON after prose is not
 * read as calls.
 *
 * When the calls cannot all be read but the reply names a tool in `offered` with arguments anywhere
 * (`tool-call-intent.ts`), a call inside prose too, returns `unreadable` with what went wrong, for a
 * repair turn; otherwise (prose, data, tools not offered) `undefined`: the reply is an answer.
 */
export function textToolCalls(content: string, offered: ReadonlySet<string>, newId: () => string): TextToolCalls {
  // What a model writes after its calls as their result is invented (the tools have not run): cut.
  const invented = content.indexOf('<tool_response>');
  const s = (invented > 0 ? content.slice(0, invented) : content).replace(END_TOKENS, '').trim();
  const problems: string[] = [];
  const read = readReply(s, offered, problems);
  if (read) {
    const found: ToolCallMessagePart['function'][] = [];
    for (const value of read.values) {
      const call = toCall(value, offered, problems);
      if (call === undefined) break;
      found.push(call);
    }
    if (found.length === read.values.length) {
      const text = read.text.filter((part) => part !== '').join('\n\n') || null;
      return { calls: found.map((call) => ({ id: newId(), type: 'function', function: call })), text };
    }
  }
  const tools = namedCallTools(s, offered);
  if (tools.length === 0) return undefined;
  return { unreadable: { tools, problem: problems[0] ?? unreadableCallProblem(s) } };
}

/** The blocks of the reply (from its start, or from its first dialect marker) and the prose around them. */
function readReply(
  s: string,
  offered: ReadonlySet<string>,
  problems: string[],
): { values: unknown[]; text: string[] } | undefined {
  const marker = s.search(CALL_MARKER);
  const start =
    readBlocks(s, 0, false, offered, problems) ??
    (marker > 0 ? readBlocks(s, marker, true, offered, problems) : undefined);
  if (start === undefined || start.values.length === 0) return undefined;
  const before = start.from > 0 ? s.slice(0, start.from).trim() : '';
  return { values: start.values, text: [before, s.slice(start.end).trim()] };
}

/**
 * The blocks from `from` on (separated by whitespace or a comma), up to the first thing that is not
 * one; undefined if none opens at `from`. After the first block, a fence or bare JSON is a block only
 * when it names offered tools: JSON after a call is otherwise the model's invention of its result,
 * kept as text.
 */
function readBlocks(
  s: string,
  from: number,
  taggedOnly: boolean,
  offered: ReadonlySet<string>,
  problems: string[],
): { values: unknown[]; from: number; end: number } | undefined {
  const values: unknown[] = [];
  let end = from;
  for (let p = skipSpace(s, from); p < s.length; p = skipSpace(s, p)) {
    const later = values.length > 0;
    if (later && s[p] === ',') p = skipSpace(s, p + 1);
    const tagged = s[p] === '<' || s.startsWith('[TOOL_CALLS]', p);
    const blockProblems: string[] = [];
    const block = readBlock(s, p, taggedOnly && !later, blockProblems);
    if (!later || tagged) problems.push(...blockProblems);
    if (block === undefined) break;
    if (later && !tagged && !block.values.every((value) => namesOffered(value, offered))) break;
    values.push(...block.values);
    p = end = block.end;
  }
  return values.length > 0 ? { values, from, end } : undefined;
}

/** Whether `value` is an object naming an offered tool as a call does (`name`, `function`, or the OpenAI shape). */
function namesOffered(value: unknown, offered: ReadonlySet<string>): boolean {
  if (!isObject(value)) return false;
  const named = isObject(value.function) ? value.function.name : (value.function ?? value.name);
  return typeof named === 'string' && offered.has(named);
}

/** The block that opens at `p`: tagged, or (unless `taggedOnly`) a fence or bare JSON. */
function readBlock(s: string, p: number, taggedOnly: boolean, problems: string[]): Block | undefined {
  if (s.startsWith('<tool_call>', p)) {
    const body = skipSpace(s, p + '<tool_call>'.length);
    const inner = s.startsWith('<function=', body) ? readFunction(s, body, problems) : readJson(s, body, problems);
    return inner && closeTag(s, inner, '</tool_call>', true);
  }
  if (s.startsWith('<tools>', p)) {
    const json = readJsonSeries(s, skipSpace(s, p + '<tools>'.length), problems);
    return json && closeTag(s, json, '</tools>', false);
  }
  if (s.startsWith('<function=', p)) return readFunction(s, p, problems);
  if (s.startsWith('[TOOL_CALLS]', p)) return readMistral(s, skipSpace(s, p + '[TOOL_CALLS]'.length), problems);
  if (s.startsWith('<|python_tag|>', p)) {
    const body = skipSpace(s, p + '<|python_tag|>'.length);
    return readPythonic(s, body, problems) ?? readJsonSeries(s, body, problems);
  }
  if (taggedOnly && !s.startsWith('```', p)) return undefined;
  FENCE_OPEN.lastIndex = p;
  if (FENCE_OPEN.test(s)) {
    const json = readJsonSeries(s, skipSpace(s, FENCE_OPEN.lastIndex), problems);
    if (json === undefined) return undefined;
    return skipSpace(s, json.end) === s.length ? json : closeTag(s, json, '```', false);
  }
  return taggedOnly ? undefined : (readPythonic(s, p, problems) ?? readJson(s, p, problems));
}

/** Llama 3.2's `[name(key=value, …), …]` at `p`, if a list of calls opens there. */
function readPythonic(s: string, p: number, problems: string[]): Block | undefined {
  PYTHONIC_OPEN.lastIndex = p;
  if (!PYTHONIC_OPEN.test(s)) return undefined;
  const calls = readPythonicCalls(s, p);
  if (calls === undefined)
    problems.push('the list of calls is not valid (write name(key=value, …) with Python literals)');
  return calls;
}

/** `<function=name>` with a JSON arguments object or `<parameter=key>` lines, then `</function>`. */
function readFunction(s: string, p: number, problems: string[]): Block | undefined {
  FUNCTION_OPEN.lastIndex = p;
  const open = FUNCTION_OPEN.exec(s);
  if (open === null) return undefined;
  const name = open[1];
  let end = skipSpace(s, FUNCTION_OPEN.lastIndex);
  let args: unknown;
  if (s[end] === '{' || s[end] === '[') {
    const json = readJsonAt(s, end);
    if (json.end === undefined) return void problems.push(json.error);
    [args, end] = [json.value, json.end];
  } else {
    const params = new Map<string, string>();
    PARAMETER.lastIndex = end;
    for (let m = PARAMETER.exec(s); m !== null; m = PARAMETER.exec(s)) {
      if (params.has(m[1])) return void problems.push(`the parameter ${m[1]} is given twice`);
      params.set(m[1], m[2].replace(/^\r?\n|\r?\n$/g, ''));
      end = PARAMETER.lastIndex;
    }
    args = Object.fromEntries(params);
  }
  return closeTag(s, { values: [{ name, arguments: args }], end }, '</function>', true);
}

/** Mistral's `[TOOL_CALLS]`: a JSON array (or object) of calls, or `name[ARGS]{…}`, repeated after further `[TOOL_CALLS]`. */
function readMistral(s: string, p: number, problems: string[]): Block | undefined {
  if (s[p] === '[' || s[p] === '{') return readJsonSeries(s, p, problems);
  MISTRAL_NAMED.lastIndex = p;
  const named = MISTRAL_NAMED.exec(s);
  if (named === null) return undefined;
  const json = readJsonAt(s, skipSpace(s, MISTRAL_NAMED.lastIndex));
  if (json.end === undefined) return void problems.push(json.error);
  return { values: [{ name: named[1], arguments: json.value }], end: json.end };
}

/** The block extended past `tag`, which must follow it after whitespace unless `optional`. */
function closeTag(s: string, block: Block, tag: string, optional: boolean): Block | undefined {
  const p = skipSpace(s, block.end);
  if (s.startsWith(tag, p)) return { values: block.values, end: p + tag.length };
  return optional ? block : undefined;
}

/** The JSON object or array that opens at `p`, an array standing for its elements. */
function readJson(s: string, p: number, problems: string[]): Block | undefined {
  const json = readJsonAt(s, p);
  if (json.end === undefined) {
    if (s[p] === '{' || s[p] === '[') problems.push(json.error);
    return undefined;
  }
  return { values: Array.isArray(json.value) ? json.value : [json.value], end: json.end };
}

/** One or more JSON objects or arrays from `p` on, separated by whitespace or `;`. */
function readJsonSeries(s: string, p: number, problems: string[]): Block | undefined {
  const values: unknown[] = [];
  let end = p;
  for (let next = p; s[next] === '{' || s[next] === '[';) {
    const json = readJson(s, next, problems);
    if (json === undefined) return undefined;
    values.push(...json.values);
    end = json.end;
    next = skipSpace(s, end);
    if (s[next] === ';') next = skipSpace(s, next + 1);
  }
  return values.length > 0 ? { values, end } : undefined;
}

/** A call object's name and arguments, or undefined (with why in `problems`) when it is not a call to an offered tool. */
function toCall(
  value: unknown,
  offered: ReadonlySet<string>,
  problems: string[],
): ToolCallMessagePart['function'] | undefined {
  if (!isObject(value)) return void problems.push('a call must be a JSON object');
  if ('function' in value && typeof value.function === 'string') {
    // `{"function": "name", "arguments": {...}}`, as small models also write it.
    const { function: name, ...rest } = value;
    if ('name' in rest) return void problems.push('a call has both "function" and "name"');
    return toCall({ name, ...rest }, offered, problems);
  }
  if ('function' in value) {
    if (!hasOnly(value, WRAPPER_KEYS))
      return void problems.push(`a call has other keys (${keys(value, WRAPPER_KEYS)})`);
    return toCall(value.function, offered, problems);
  }
  if (!hasOnly(value, CALL_KEYS)) return void problems.push(`a call has other keys (${keys(value, CALL_KEYS)})`);
  if (typeof value.name !== 'string') return void problems.push('a call has no "name"');
  if (!offered.has(value.name)) return void problems.push(`"${value.name}" is not one of your tools`);
  if ('arguments' in value && 'parameters' in value)
    return void problems.push('a call has both "arguments" and "parameters"');
  const raw =
    'arguments' in value
      ? value.arguments
      : 'parameters' in value
        ? value.parameters
        : Object.keys(value).length === 1
          ? {}
          : undefined;
  const parsed = typeof raw === 'string' ? parseJson(raw) : { value: raw };
  const args = 'value' in parsed ? parsed.value : undefined;
  if (!isObject(args)) return void problems.push(`the arguments of ${value.name} must be a JSON object`);
  return { name: value.name, arguments: JSON.stringify(args) };
}

/** Only keys from `allowed`, and `type`, if there, is "function". */
function hasOnly(value: JsonObject, allowed: ReadonlySet<string>): boolean {
  return Object.keys(value).every((key) => allowed.has(key)) && (!('type' in value) || value.type === 'function');
}

function keys(value: JsonObject, allowed: ReadonlySet<string>): string {
  const other = Object.keys(value).filter((key) => !allowed.has(key));
  return other.length ? other.join(', ') : `"type": ${JSON.stringify(value.type)}`;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
