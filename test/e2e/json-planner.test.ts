import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRequest, ScriptedReply } from '../support/fake-model';
import { Harness } from '../support/harness';
import { localWaves, recordHistory } from '../support/history';

const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

/** A wave_plan reply, as a JSON-mode model sends it. */
function plan(
  status: 'continue' | 'done',
  tools: Array<{ id: string; tool: string; args: object }>,
  extra: object = {},
): ScriptedReply {
  return {
    content: JSON.stringify({ status, action: `${tools.length} tool(s)`, tools, reasoning: 'because', ...extra }),
  };
}

/** The results the model got for the last wave, by call id. */
function waveResults(request: ChatRequest): Record<string, any> {
  const last = request.messages[request.messages.length - 1];
  expect(last.role).toBe('user');
  const results: Record<string, any> = {};
  for (const line of String(last.content).split('\n').slice(1)) {
    const match = /^- (\S+) \((\w+)\): (.*)$/.exec(line)!;
    results[match[1]] = JSON.parse(match[3]);
  }
  return results;
}

/**
 * The tool waves of a run, as its history tells them: each wave's tools, and whether all its calls
 * ran in one workflow task (read tools: local activities, run side by side within the task that
 * received the model's reply).
 */
async function historyWaves(handle: Parameters<typeof recordHistory>[1]) {
  return localWaves(await handle.fetchHistory()).map(({ tools, workflowTasks }) => ({
    tools,
    oneTask: workflowTasks === 1,
  }));
}

describe('agentLoop with the JSON planner: one wave plan a turn', () => {
  it('scenario 1: dates already known: one wave, then done', async () => {
    h.fake.script(
      plan('continue', [
        { id: 'check', tool: 'get_availability', args: { check_in: '2027-01-17', check_out: '2027-01-19' } },
      ]),
      (req) => plan('done', [], { answer: `${waveResults(req).check.available.length} rooms are free.` }),
    );
    const { handle, result } = await h.run({
      goal: 'Check availability for January 17-19',
      agent: 'back-office',
      planner: 'json',
    });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', iterations: 2 });
    expect(result!.answer).toMatch(/^\d+ rooms are free\.$/);
    expect(await historyWaves(handle)).toEqual([{ tools: ['get_availability'], oneTask: true }]);

    const first = h.fake.requests[0] as ChatRequest & { response_format?: any };
    expect(first.tools).toBeUndefined();
    expect(first.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'wave_plan' } });
    expect(first.response_format.json_schema.schema.properties.status.enum).toEqual(['continue', 'done']);
    const system = String(first.messages[0].content);
    expect(system).toContain('Independent tools go in the same wave');
    expect(system).toMatch(/- get_availability: .*\n  arguments \(JSON Schema\): \{.*"check_in"/);
  });

  it('scenario 2: one night in Hanukkah: dates first, availability second', async () => {
    h.fake.script(
      plan('continue', [{ id: 'get_holiday', tool: 'resolve_holiday', args: { name: 'Hanukkah' } }]),
      (req) => {
        const holiday = waveResults(req).get_holiday;
        return plan('continue', [
          { id: 'check_avail', tool: 'get_availability', args: { check_in: holiday.start, check_out: '2026-12-05' } },
        ]);
      },
      plan('done', [], { answer: 'Rooms are free on the first night of Hanukkah.' }),
    );
    const { handle, result } = await h.run({ goal: 'one night in Hanukkah', agent: 'back-office', planner: 'json' });

    h.fake.assertDone();
    expect(result).toMatchObject({
      status: 'completed',
      iterations: 3,
      answer: 'Rooms are free on the first night of Hanukkah.',
    });
    expect(result!.waves.map((w) => w.calls.map((c) => [c.id, c.tool]))).toEqual([
      [['get_holiday', 'resolve_holiday']],
      [['check_avail', 'get_availability']],
    ]);
    expect(result!.waves[1].calls[0].args).toEqual({ check_in: '2026-12-04', check_out: '2026-12-05' });
    expect(await historyWaves(handle)).toEqual([
      { tools: ['resolve_holiday'], oneTask: true },
      { tools: ['get_availability'], oneTask: true },
    ]);
  });

  it('scenario 3: Hanukkah and next weekend: two waves of two parallel calls', async () => {
    h.fake.script(
      plan('continue', [
        { id: 'hanukkah', tool: 'resolve_holiday', args: { name: 'Hanukkah' } },
        { id: 'weekend', tool: 'resolve_date_hint', args: { hint: 'next weekend' } },
      ]),
      (req) => {
        const { hanukkah, weekend } = waveResults(req);
        return plan('continue', [
          { id: 'a1', tool: 'get_availability', args: { check_in: hanukkah.start, check_out: '2026-12-05' } },
          { id: 'a2', tool: 'get_availability', args: { check_in: weekend.start, check_out: weekend.end } },
        ]);
      },
      plan('done', [], { answer: 'Both work.' }),
    );
    const { handle, result } = await h.run({
      goal: 'I need availability for Hanukkah and also next weekend',
      agent: 'back-office',
      planner: 'json',
    });
    await recordHistory('json-planner', handle);

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', iterations: 3, answer: 'Both work.' });
    expect(await historyWaves(handle)).toEqual([
      { tools: ['resolve_holiday', 'resolve_date_hint'], oneTask: true },
      { tools: ['get_availability', 'get_availability'], oneTask: true },
    ]);
    expect(result!.waves[1].calls.map((c) => c.args.check_in)).toEqual(['2026-12-04', '2026-11-28']);
  });

  it('malformed plans go back to the model with the error, count as iterations, and never crash the run', async () => {
    h.fake.script(
      { content: 'Sure! I will check the calendar.' },
      { content: '{"status": "continue", "tools": "resolve_holiday"' },
      { content: JSON.stringify({ status: 'maybe', action: 'x', tools: 'resolve_holiday', reasoning: '' }) },
      plan('continue', [], {}),
      plan('done', [], { answer: 'Giving up politely.' }),
    );
    const { result, transcript } = await h.run({ goal: 'When is Easter?', planner: 'json' });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', iterations: 5, answer: 'Giving up politely.', waves: [] });
    const feedback = transcript
      .filter((m) => m.role === 'user')
      .slice(1)
      .map((m) => m.content);
    expect(feedback).toEqual([
      expect.stringMatching(/^Your reply could not be used: the reply is not a JSON object/),
      expect.stringMatching(/^Your reply could not be used: the reply is not valid JSON/),
      expect.stringMatching(
        /^Your reply could not be used: the plan does not match the wave_plan schema: status: .*; tools: /,
      ),
      expect.stringMatching(/status "continue" needs at least one tool/),
    ]);
  });

  it('malformed plans still end at the iteration limit', async () => {
    h.fake.script({ content: 'no plan' }, { content: 'still no plan' });
    const { result } = await h.run({ goal: 'When is Easter?', planner: 'json', maxIterations: 2 });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'max_iterations', iterations: 2, answer: 'still no plan' });
  });

  it('the circuit breaker applies: the same unusable plan three times in a row ends the run circuit_open', async () => {
    h.fake.script({ content: 'no plan' }, { content: 'no plan' }, { content: 'no plan' });
    const { result } = await h.run({ goal: 'When is Easter?', planner: 'json' });

    h.fake.assertDone();
    expect(result!.status).toBe('circuit_open');
    expect(result!.answer).toMatch(
      /^Circuit open: \(planner\) failed 3 times in a row: the reply is not a JSON object/,
    );
  });

  it('tagged fallback: <tool> blocks in plain text are a wave; task_complete ends the run', async () => {
    h.fake.script(
      {
        content:
          'I will look both up.\n<tool>{"tool_name": "search_users", "arguments": {"name": "Bob"}}</tool>\n' +
          '<tool>{"tool_name": "calculator", "arguments": {"expression": "2*21"}}</tool>',
      },
      (req) => {
        const results = String(req.messages[req.messages.length - 1].content);
        expect(results).toMatch(/^Results of wave 1:\n- w1-1 \(search_users\): \[\{"id":\d+,"name":"Bob Martin"/);
        expect(results).toContain('- w1-2 (calculator): 42');
        return {
          content:
            '<tool>{"tool_name": "task_complete", "arguments": {"result": "Bob Martin found; 2*21 = 42."}}</tool>',
        };
      },
    );
    const { handle, result } = await h.run({ goal: 'Find Bob and compute 2*21', planner: 'json' });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', iterations: 2, answer: 'Bob Martin found; 2*21 = 42.' });
    expect(result!.waves.map((w) => w.calls.map((c) => c.tool))).toEqual([
      ['search_users', 'calculator'],
      ['task_complete'],
    ]);
    expect(await historyWaves(handle)).toEqual([
      { tools: ['search_users', 'calculator'], oneTask: true },
      { tools: ['task_complete'], oneTask: true },
    ]);
  });
  it('tagged fallback: the text around the blocks is what the model was thinking; a reply in prose after them is the answer', async () => {
    h.fake.script(
      {
        content:
          'Bob first, then his record.\n<tool>{"tool_name": "search_users", "arguments": {"name": "Bob"}}</tool>',
      },
      { content: 'Bob Martin works at Acme.' },
    );
    const { handle, result, progress } = await h.run({ goal: 'Where does Bob work?', planner: 'json' });
    await recordHistory('json-planner-tagged', handle);

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', iterations: 2, answer: 'Bob Martin works at Acme.' });
    expect(progress.said).toEqual({ iteration: 1, text: 'Bob first, then his record.' });
  });

  it('tagged fallback: a run stopped by its iteration limit answers with what the model last said around its blocks', async () => {
    h.fake.script({
      content: 'Looking Bob up.\n<tool>{"tool_name": "search_users", "arguments": {"name": "Bob"}}</tool>',
    });
    const { result } = await h.run({ goal: 'Where does Bob work?', planner: 'json', maxIterations: 1 });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'max_iterations', answer: 'Looking Bob up.' });
  });

  it('JSON mode: a reply in prose is still a plan that did not parse (the model has not planned with <tool> blocks)', async () => {
    h.fake.script(
      { content: 'Bob works at Acme, I believe.' },
      { content: '{"status": "done", "action": "answer", "answer": "Acme.", "tools": [], "reasoning": ""}' },
    );
    const { result } = await h.run({ goal: 'Where does Bob work?', planner: 'json' });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', iterations: 2, answer: 'Acme.' });
    expect(h.fake.requests[1].messages.at(-1)!.content).toMatch(
      /^Your reply could not be used: the reply is not a JSON object/,
    );
  });
});
