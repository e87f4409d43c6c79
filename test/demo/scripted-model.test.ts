import OpenAI, { BadRequestError, NotFoundError } from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_GOAL } from '../../src/demo/demo-script';
import { startScriptedModel, type ScriptedModel } from '../../src/demo/scripted-model';

/**
 * The scripted demo model through the real `openai` client, as the worker calls it: each step of
 * the back-office scenario is the reply to the transcript so far, whole and streamed.
 */
describe('the scripted demo model', () => {
  let model: ScriptedModel;
  let openai: OpenAI;

  beforeAll(async () => {
    model = await startScriptedModel();
    openai = new OpenAI({ baseURL: model.baseURL, apiKey: 'scripted-demo', maxRetries: 0 });
  });
  afterAll(() => model.close());

  const tool = (name: string): ChatCompletionTool => ({
    type: 'function',
    function: { name, description: name, parameters: { type: 'object', properties: {} } },
  });
  const TOOLS = ['search_users', 'get_user', 'update_user', 'task_complete'].map(tool);
  const bob = { id: 2, name: 'Bob Martin', email: 'bob.martin@initech.example', company: 'Initech' };

  /** The transcript of `goal` after each of `calls` ran with its result. */
  const transcript = (goal: string, ...calls: Array<[name: string, args: object, result: string]>) => {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You are a back-office assistant.' },
      { role: 'user', content: goal },
    ];
    for (const [index, [name, args, result]] of calls.entries()) {
      const id = `call_${index}`;
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
      });
      messages.push({ role: 'tool', tool_call_id: id, content: result });
    }
    return messages;
  };

  /** The reply, as a whole completion. */
  const reply = async (messages: ChatCompletionMessageParam[], tools = TOOLS) => {
    const completion = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages, tools });
    const { message, finish_reason } = completion.choices[0];
    return {
      content: message.content,
      calls: (message.tool_calls ?? []).map((call) =>
        call.type === 'function' ? { name: call.function.name, args: JSON.parse(call.function.arguments) } : call,
      ),
      finish: finish_reason,
      usage: completion.usage,
    };
  };

  const searched: [string, object, string] = ['search_users', { name: 'Bob' }, JSON.stringify([bob])];
  const read: [string, object, string] = ['get_user', { id: 2 }, JSON.stringify(bob)];

  it('walks the scenario: search_users for Bob, get_user, update_user to EPAM, then the answer', async () => {
    expect(await reply(transcript(DEMO_GOAL))).toMatchObject({
      content: 'Let me find Bob first.',
      calls: [{ name: 'search_users', args: { name: 'Bob' } }],
      finish: 'tool_calls',
    });
    expect(await reply(transcript(DEMO_GOAL, searched))).toMatchObject({
      content: null,
      calls: [{ name: 'get_user', args: { id: 2 } }],
    });
    expect(await reply(transcript(DEMO_GOAL, searched, read))).toMatchObject({
      calls: [{ name: 'update_user', args: { id: 2, company: 'EPAM' } }],
    });
    const updated = JSON.stringify({ ...bob, company: 'EPAM' });
    const done = await reply(
      transcript(DEMO_GOAL, searched, read, ['update_user', { id: 2, company: 'EPAM' }, updated]),
    );
    expect(done).toMatchObject({
      content: 'Done: Bob Martin (user 2) now works at EPAM; his email is unchanged.',
      calls: [],
      finish: 'stop',
    });
    expect(done.usage!.total_tokens).toBeGreaterThan(0);
  });

  it('reads the results, not the number of turns: a retried or repeated step gets the next step of its newest result', async () => {
    const repeated = transcript(DEMO_GOAL, ['search_users', { name: 'Bob' }, 'Error: database is locked'], searched);
    expect((await reply(repeated)).calls).toEqual([{ name: 'get_user', args: { id: 2 } }]);
    // Bob has another id in this database: the update names the id get_user returned.
    const other = { ...bob, id: 7 };
    const moved = transcript(
      DEMO_GOAL,
      ['search_users', { name: 'Bob' }, JSON.stringify([other])],
      ['get_user', { id: 7 }, JSON.stringify(other)],
    );
    expect((await reply(moved)).calls).toEqual([{ name: 'update_user', args: { id: 7, company: 'EPAM' } }]);
  });

  it('a denied update, a failed search and nobody named Bob end with an answer that says so', async () => {
    const denied = transcript(DEMO_GOAL, searched, read, [
      'update_user',
      { id: 2, company: 'EPAM' },
      'Error: denied: not this quarter',
    ]);
    expect(await reply(denied)).toMatchObject({
      content: "Bob's company was not changed: the change was denied (not this quarter).",
      calls: [],
    });
    expect((await reply(transcript(DEMO_GOAL, ['search_users', { name: 'Bob' }, '[]']))).content).toBe(
      'Nobody named Bob is in the user records, so nothing was changed.',
    );
    expect(
      (await reply(transcript(DEMO_GOAL, ['search_users', { name: 'Bob' }, 'Error: no such table: users']))).content,
    ).toBe('I could not search the users: no such table: users');
  });

  it('any other goal gets a plain answer: it knows only the demo scenario, and how to use a real model', async () => {
    const other = await reply(transcript('Book room 12 for Alice next Friday'));
    expect(other.calls).toEqual([]);
    expect(other.content).toContain('scripted demo model: it knows only the demo scenario');
    expect(other.content).toContain('OPENAI_API_KEY');
    expect(other.content).toContain('OPENAI_BASE_URL');
    // A run without the scenario's tools is told which are missing, not sent calls it cannot make.
    const toolless = await reply(transcript(DEMO_GOAL), [tool('calculator')]);
    expect(toolless.calls).toEqual([]);
    expect(toolless.content).toContain('this run does not offer search_users, get_user, update_user');
  });

  it('streams as OpenAI does: the text word by word, the tool call, the finish reason, then the usage asked for', async () => {
    const stream = await openai.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: transcript(DEMO_GOAL),
      tools: TOOLS,
      stream: true,
      stream_options: { include_usage: true },
    });
    const texts: string[] = [];
    const calls: Array<{ name?: string; arguments?: string }> = [];
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices[0];
      if (!choice) continue;
      if (choice.delta.content) texts.push(choice.delta.content);
      for (const call of choice.delta.tool_calls ?? []) calls[call.index] = { ...call.function };
      finish = choice.finish_reason ?? finish;
    }
    expect(texts).toEqual(['Let ', 'me ', 'find ', 'Bob ', 'first.']);
    expect(calls).toEqual([{ name: 'search_users', arguments: '{"name":"Bob"}' }]);
    expect(finish).toBe('tool_calls');
    expect(usage!.total_tokens).toBe(usage!.prompt_tokens + usage!.completion_tokens);
  });

  it('a request that is not a chat completion is a 400 naming what is wrong; another path is a 404', async () => {
    const bad = openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [] });
    await expect(bad).rejects.toBeInstanceOf(BadRequestError);
    await expect(bad).rejects.toThrow(/Not a chat completion request: .*messages/s);
    await expect(openai.embeddings.create({ model: 'x', input: 'hi' })).rejects.toBeInstanceOf(NotFoundError);
  });
});
