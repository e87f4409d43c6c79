/**
 * What the scripted demo model (`scripted-model.ts`) answers: the back-office scenario "Find Bob and
 * update his company to EPAM", one step a reply, chosen from the transcript it is sent (the goal and
 * the tool results so far), as a real model would choose it. So the scenario goes on whatever the
 * order of the requests, and a retried call gets the same reply. Any other goal gets a short answer
 * saying the scripted model only knows this scenario.
 */

/** The goal the scripted demo model knows. */
export const DEMO_GOAL = 'Find Bob and update his company to EPAM';

/** A message of a Chat Completions request, as far as the script reads it. */
export interface ScriptMessage {
  role: string;
  content?: string | null | Array<{ type?: string; text?: string }>;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/** The scripted reply: text, tool calls, or both. */
export interface ScriptedReply {
  content: string | null;
  toolCalls: Array<{ name: string; args: Record<string, unknown> }>;
}

/** A user as the demo's user tools return it. */
interface DemoUser {
  id: number;
  name: string;
  email: string;
  company: string;
}

/** A tool call of the transcript with its result (`ok` false: the result is the `Error: …` text). */
interface ToolOutcome {
  name: string;
  ok: boolean;
  content: string;
}

const SCENARIO_TOOLS = ['search_users', 'get_user', 'update_user'];

/**
 * The reply to `messages` (offered `tools`, when the request names them): the next step of the
 * scenario after the newest result of each of its tools, else a plain answer that ends the run.
 */
export function demoReply(messages: ScriptMessage[], tools?: string[]): ScriptedReply {
  const goal = textOf(messages.find((message) => message.role === 'user')?.content);
  if (!/\bbob\b/i.test(goal) || !/\bepam\b/i.test(goal)) return answer(onlyTheDemo(goal));
  const missing = tools ? SCENARIO_TOOLS.filter((name) => !tools.includes(name)) : [];
  if (missing.length > 0)
    return answer(
      `The scripted demo model needs the tools ${SCENARIO_TOOLS.join(', ')} (the back-office agent's); ` +
        `this run does not offer ${missing.join(', ')}.`,
    );

  const outcomes = toolOutcomes(messages);
  const newest = (name: string) => outcomes.filter((outcome) => outcome.name === name).at(-1);

  const update = newest('update_user');
  if (update) {
    if (!update.ok) {
      const problem = problemOf(update.content);
      const denial = /^denied:\s*/.exec(problem);
      return answer(
        denial
          ? `Bob's company was not changed: the change was denied (${problem.slice(denial[0].length)}).`
          : `Bob's company was not changed: ${problem}`,
      );
    }
    const user = parsed<DemoUser>(update.content);
    if (!user) return answer(`update_user answered what I cannot read: ${update.content}`);
    return answer(`Done: ${user.name} (user ${user.id}) now works at ${user.company}; his email is unchanged.`);
  }
  const found = newest('get_user');
  if (found) {
    if (!found.ok) return answer(`I could not read Bob's record: ${problemOf(found.content)}`);
    const user = parsed<DemoUser>(found.content);
    if (!user) return answer(`get_user answered what I cannot read: ${found.content}`);
    return call(null, 'update_user', { id: user.id, company: 'EPAM' });
  }
  const search = newest('search_users');
  if (search) {
    if (!search.ok) return answer(`I could not search the users: ${problemOf(search.content)}`);
    const users = parsed<DemoUser[]>(search.content);
    if (!Array.isArray(users)) return answer(`search_users answered what I cannot read: ${search.content}`);
    const bobs = users.filter((user) => /\bbob\b/i.test(user.name));
    if (bobs.length === 0) return answer('Nobody named Bob is in the user records, so nothing was changed.');
    if (bobs.length > 1)
      return answer(`Several users are named Bob (${bobs.map((user) => user.name).join(', ')}): which one is meant?`);
    return call(null, 'get_user', { id: bobs[0].id });
  }
  return call('Let me find Bob first.', 'search_users', { name: 'Bob' });
}

function onlyTheDemo(goal: string): string {
  return [
    `This is waveloop's scripted demo model: it knows only the demo scenario ("${DEMO_GOAL}"),`,
    `not "${goal.length > 80 ? `${goal.slice(0, 77)}...` : goal}".`,
    'Set OPENAI_API_KEY (OpenAI) or OPENAI_BASE_URL (any OpenAI-compatible endpoint) to run other goals on a real model.',
  ].join(' ');
}

/** The tool calls of the assistant messages that have a result, in the order of their results. */
function toolOutcomes(messages: ScriptMessage[]): ToolOutcome[] {
  const names = new Map<string, string>();
  const outcomes: ToolOutcome[] = [];
  for (const message of messages) {
    for (const toolCall of message.tool_calls ?? []) names.set(toolCall.id, toolCall.function.name);
    if (message.role !== 'tool' || message.tool_call_id === undefined) continue;
    const name = names.get(message.tool_call_id);
    const content = textOf(message.content);
    if (name) outcomes.push({ name, ok: !content.startsWith('Error:'), content });
  }
  return outcomes;
}

/** What a failed call's result says, without its `Error:` prefix. */
function problemOf(content: string): string {
  return content.replace(/^Error:\s*/, '');
}

/** The JSON `content` holds, or undefined when it is not JSON. */
function parsed<T>(content: string): T | undefined {
  try {
    return JSON.parse(content) as T;
  } catch {
    return undefined;
  }
}

function textOf(content: ScriptMessage['content']): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((part) => part.text ?? '').join('');
}

function answer(content: string): ScriptedReply {
  return { content, toolCalls: [] };
}

function call(content: string | null, name: string, args: Record<string, unknown>): ScriptedReply {
  return { content, toolCalls: [{ name, args }] };
}
