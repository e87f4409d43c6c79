import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkStartedFakes, FakeModel } from './fake-model';

/**
 * The fake model's strictness (test/support/fake-model.ts): what fails a test that scripts it. The
 * checks are called directly here; after every test the setup file calls them for every fake
 * (test/support/fake-model-checks.ts), and finds nothing left, since each check forgets what it
 * reported.
 */
const fake = new FakeModel();
beforeAll(() => fake.start());
afterAll(() => fake.stop());

/** One chat completion request, as the `openai` client sends it: the status and the error message. */
async function ask(goal = 'Say hi', model = fake): Promise<{ status: number; message?: string }> {
  const response = await fetch(`${model.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fake-model', messages: [{ role: 'user', content: goal }] }),
  });
  const body = (await response.json()) as { error?: { message: string } };
  return { status: response.status, message: body.error?.message };
}

describe('FakeModel: strict by default', () => {
  it('every scripted reply used, nothing more asked: the check passes', async () => {
    fake.script({ content: 'one' }, { content: 'two' });
    expect((await ask()).status).toBe(200);
    expect((await ask()).status).toBe(200);
    expect(() => fake.assertDone()).not.toThrow();
  });

  it('a scripted reply never requested fails the check, once', async () => {
    fake.script({ content: 'one' }, { content: 'two' }, { content: 'three' });
    await ask();
    expect(() => fake.assertDone()).toThrow('2 scripted model repl(ies) were never requested: "two"; "three".');
    expect(() => fake.assertDone()).not.toThrow();
  });

  it('a request beyond the script is answered 400 and fails the check, naming its goal', async () => {
    fake.script({ content: 'one' });
    await ask();
    expect(await ask('Say more')).toEqual({
      status: 400,
      message: 'fake model: the script is exhausted (unexpected model call)',
    });
    expect(() => fake.assertDone()).toThrow(
      'The fake model was called 1 time(s) more than scripted: a request of 1 message(s) for "Say more".',
    );
    expect(() => fake.assertDone()).not.toThrow();
  });

  it('route: requests past atMost are answered 400 and fail the check', async () => {
    fake.route(() => ({ content: 'routed' }), { atMost: 2 });
    expect((await ask()).status).toBe(200);
    expect((await ask()).status).toBe(200);
    expect((await ask('A third time')).status).toBe(400);
    expect(() => fake.assertDone()).toThrow(/^The fake model was called 1 time\(s\) more than scripted/);
    fake.reset();
  });

  it('a reply function that throws: its request is answered 500 with the message, later ones 400, and the check throws its error', async () => {
    fake.script(
      () => {
        throw new Error('the reply saw the wrong request');
      },
      { content: 'never sent' },
    );
    expect(await ask()).toEqual({
      status: 500,
      message: 'fake model: the reply function threw: the reply saw the wrong request',
    });
    // The run fails at once instead of retrying into the replies scripted for later turns.
    expect((await ask()).status).toBe(400);
    expect(() => fake.assertDone()).toThrow(new Error('the reply saw the wrong request'));
    expect((await ask()).status).toBe(400); // the script's rest was forgotten with the failure
    expect(() => fake.assertDone()).toThrow(/more than scripted/);
  });

  it("an expect that fails inside a reply function fails the check with the assertion's message", async () => {
    fake.script((request) => {
      expect(request.messages).toHaveLength(3);
      return { content: 'fine' };
    });
    expect((await ask()).status).toBe(500);
    expect(() => fake.assertDone()).toThrow(
      "expected [ { role: 'user', content: 'Say hi' } ] to have a length of 3 but got 1",
    );
  });

  it('script() refuses to drop replies never requested; reset() drops them on purpose', async () => {
    fake.script({ content: 'one' }, { content: 'two' });
    expect(() => fake.script({ content: 'three' })).toThrow(
      'fake model: script() while 2 scripted model repl(ies) were never requested ("one"; "two"); call reset() first to drop them on purpose.',
    );
    fake.script({ content: 'four' });
    expect(() => fake.route(() => ({ content: 'five' }), { atMost: 1 })).toThrow(/^fake model: route\(\) while 1/);
    fake.script({ content: 'six' }).reset().script({ content: 'seven' });
    expect(await ask()).toEqual({ status: 200, message: undefined });
    expect(() => fake.assertDone()).not.toThrow();
  });

  it('checkStartedFakes: checks every fake started, a stopped one once more, then forgets it', async () => {
    const other = await new FakeModel().start();
    other.script({ content: 'unused' });
    await other.stop();
    expect(() => checkStartedFakes()).toThrow('1 scripted model repl(ies) were never requested: "unused".');
    other.script({ content: 'unused again' });
    expect(() => checkStartedFakes()).not.toThrow();
  });
});

describe('FakeModel: a transcript a real endpoint refuses fails the test', () => {
  const call = (id: string) => ({ id, type: 'function', function: { name: 'calculator', arguments: '{}' } });
  async function send(messages: unknown[]): Promise<{ status: number; message?: string }> {
    const response = await fetch(`${fake.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake-model', messages }),
    });
    return {
      status: response.status,
      message: ((await response.json()) as { error?: { message: string } }).error?.message,
    };
  }

  it('each call answered by the tool messages right after it: taken', async () => {
    fake.script({ content: 'fine' });
    const answered = await send([
      { role: 'user', content: 'Add' },
      { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
      { role: 'tool', tool_call_id: 'b', content: '2' },
      { role: 'tool', tool_call_id: 'a', content: '1' },
    ]);
    expect(answered.status).toBe(200);
    expect(() => fake.assertDone()).not.toThrow();
  });

  it('a tool message that answers no call of the message before it: 400, and the test fails', async () => {
    const orphan = await send([
      { role: 'user', content: 'Add' },
      { role: 'assistant', content: null, tool_calls: [call('a')] },
      { role: 'tool', tool_call_id: 'a', content: '1' },
      { role: 'tool', tool_call_id: 'z', content: '?' },
    ]);
    expect(orphan.status).toBe(400);
    expect(orphan.message).toContain("messages[3]: Invalid parameter: messages with role 'tool' must be a response");
    expect(() => fake.assertDone()).toThrow('a real endpoint answers 400 to this transcript');
  });

  it('a call left without its tool message: 400, and the test fails', async () => {
    const unanswered = await send([
      { role: 'user', content: 'Add' },
      { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
      { role: 'tool', tool_call_id: 'a', content: '1' },
      { role: 'user', content: 'and?' },
    ]);
    expect(unanswered.status).toBe(400);
    expect(unanswered.message).toContain('The following tool_call_ids did not have response messages: b');
    expect(() => fake.assertDone()).toThrow('a real endpoint answers 400 to this transcript');
  });
});

describe('FakeModel: a script calls the tools the request offers', () => {
  async function offering(tools: string[]): Promise<number> {
    const response = await fetch(`${fake.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'fake-model',
        messages: [{ role: 'user', content: 'Go' }],
        tools: tools.map((name) => ({ type: 'function', function: { name, parameters: { type: 'object' } } })),
      }),
    });
    await response.arrayBuffer();
    return response.status;
  }

  it('a call of a tool not offered fails the test, unless the script marks it unoffered', async () => {
    fake.script({ toolCalls: [{ name: 'launch_rocket', args: {} }] });
    expect(await offering(['search_users'])).toBe(400);
    expect(() => fake.assertDone()).toThrow(
      'the script calls launch_rocket, which the request does not offer (search_users)',
    );

    fake.script({ toolCalls: [{ name: 'launch_rocket', args: {}, unoffered: true }] });
    expect(await offering(['search_users'])).toBe(200);
    expect(() => fake.assertDone()).not.toThrow();
  });
});
