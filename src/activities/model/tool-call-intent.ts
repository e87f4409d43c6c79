/**
 * The rule behind reading tool calls written as text: a reply that names an offered tool with
 * arguments is never the final answer. `textToolCalls` reads it as calls where a call goes (the
 * reply's start, or from the first dialect marker on: `<tool_call>`, `<tools>`, `<function=`,
 * `[TOOL_CALLS]`, `<|python_tag|>`); what it cannot read, a call written inside prose among it, goes
 * back to the model as a repair turn (`repairFeedback`). JSON data, tools named without arguments
 * and tools not offered stay an answer.
 */

/** The markers of the tool-call dialects: prose may come before them, never before a fence or bare JSON. */
export const CALL_MARKER = /<tool_call>|<tools>|<function=|\[TOOL_CALLS\]|<\|python_tag\|>/;
/** A reply that opens with JSON, in a fence or not, doubled braces and all. */
const OPENS_WITH_JSON = /^(?:```[\w-]*\s*)?[{[]/;
/** `"name": "tool"` or `"function": "tool"`, in any quotes. */
const NAME_KEY = /["']?\b(?:name|function)["']?\s*:\s*["']([\w.-]+)["']/g;
const ARGS_KEY = /["']?\b(?:arguments|parameters)["']?\s*:/;
/** `<function=tool>` followed by its arguments (JSON or `<parameter=` lines). */
const FUNCTION_TAG = /<function=([\w.-]+)>\s*[{[<]/g;
/** Llama 3.2's pythonic `[tool(key=…`. */
const PYTHONIC = /\[\s*([\w.-]+)\s*\(\s*\w+\s*=/g;
/** Mistral's `[TOOL_CALLS]tool[ARGS]`. */
const MISTRAL_NAMED = /([\w.-]+)(?:\[CALL_ID\][\w-]*)?\[ARGS\]/g;

/** The offered tools a reply names with arguments, anywhere in it; empty when it is prose or data. */
export function namedCallTools(reply: string, offered: ReadonlySet<string>): string[] {
  const s = reply.trim();
  const marker = s.search(CALL_MARKER);
  const region = marker >= 0 ? s.slice(marker) : s;
  if (region === '') return [];
  const named = [...region.matchAll(FUNCTION_TAG), ...region.matchAll(MISTRAL_NAMED), ...region.matchAll(PYTHONIC)].map(
    (m) => m[1],
  );
  if (ARGS_KEY.test(region)) named.push(...[...region.matchAll(NAME_KEY)].map((m) => m[1]));
  return [...new Set(named.filter((name) => offered.has(name)))];
}

/** Why a reply that names a tool could not be read, when the reader found no particular reason. */
export function unreadableCallProblem(reply: string): string {
  if (/'(?:name|arguments|parameters)'\s*:/.test(reply)) return 'the JSON uses single quotes';
  const s = reply.trim();
  if (s.search(CALL_MARKER) < 0 && !OPENS_WITH_JSON.test(s)) return 'it is written inside prose';
  return 'it is not in a form a tool call can take';
}

/** What the model is told when its tool call could not be read: what went wrong, and how to write a call. */
export function repairFeedback({ tools, problem }: { tools: string[]; problem: string }): string {
  const tool = tools[0];
  return (
    `your call of ${tools.join(', ')} could not be read as a tool call (${problem}), so nothing was run. ` +
    'To call a tool, reply with only the call, as valid JSON (double quotes, no trailing commas, single braces):\n' +
    `<tool_call>\n{"name": "${tool}", "arguments": {…the tool's parameters…}}\n</tool_call>\n` +
    'To give your final answer instead, reply in plain text without a call.'
  );
}
