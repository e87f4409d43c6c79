import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from '../support/harness';
import { recordHistory, toolCallSummaries } from '../support/history';

const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

/** How small local models write a calculator call as text, when their server leaves it in the reply. */
const fenced = (expression: string) =>
  `\`\`\`json\n{\n  "name": "calculator",\n  "arguments": {\n    "expression": "${expression}"\n  }\n}\n\`\`\``;

describe('agentLoop: tool calls written as text', () => {
  it('each common text form runs as a wave, exactly as tool calls the server parsed', async () => {
    h.fake.script(
      { content: fenced('17*23') },
      { content: '<tools>\n{"name": "calculator", "arguments": {"expression": "391+4"}}\n</tools>' },
      {
        content:
          'I will compute both at once.\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "2*21"}}\n</tool_call>\n<tool_call>\n{"name": "calculator", "arguments": "{\\"expression\\": \\"100-1\\"}"}\n</tool_call>',
      },
      { content: '<function=calculator>{"expression": "6*7"}</function>' },
      { content: 'The answer is 395.' },
    );
    const { handle, result, transcript } = await h.run({
      goal: 'What is (17*23)+4? Use the calculator.',
      tools: ['calculator'],
    });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'The answer is 395.', iterations: 5 });
    expect(result!.waves.map((wave) => wave.calls.map((call) => [call.args.expression, call.result]))).toEqual([
      [['17*23', '391']],
      [['391+4', '395']],
      [
        ['2*21', '42'],
        ['100-1', '99'],
      ],
      [['6*7', '42']],
    ]);
    // The transcript keeps the calls as tool calls (the model's prose before them stays its text),
    // and the model got each result back as a tool message.
    const replies = transcript.filter((m) => m.role === 'assistant');
    expect(replies[0]).toMatchObject({
      content: null,
      tool_calls: [{ type: 'function', function: { name: 'calculator', arguments: '{"expression":"17*23"}' } }],
    });
    expect(replies[2]).toMatchObject({ content: 'I will compute both at once.', tool_calls: [{}, {}] });
    const second = h.fake.requests[1].messages;
    expect(second.at(-1)).toMatchObject({ role: 'tool', content: '391', tool_call_id: replies[0].tool_calls![0].id });
    // The history shows the same waves, summaries and all.
    expect(toolCallSummaries(await handle.fetchHistory())).toEqual([
      'wave 1 · calculator(expression=17*23)',
      'wave 2 · calculator(expression=391+4)',
      'wave 3 · calculator(expression=2*21)',
      'wave 3 · calculator(expression=100-1)',
      'wave 4 · calculator(expression=6*7)',
    ]);
    await recordHistory('text-tool-calls', handle);
  });

  it('the doubled-brace call Qwen2.5-Coder 1.5B wrote on llama-server runs as a wave, and the run answers', async () => {
    const doubled = '{{"name": "calculator", "arguments": {"expression": "(17*23)+4"}}}';
    h.fake.script({ content: doubled }, { content: 'The answer is 395.' });
    const { result } = await h.run({ goal: 'What is (17*23)+4? Use the calculator tool.', tools: ['calculator'] });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'The answer is 395.', iterations: 2 });
    expect(result!.waves.map((wave) => wave.calls.map((call) => [call.args.expression, call.result]))).toEqual([
      [['(17*23)+4', '395']],
    ]);
    // The calculator's result reached the model as the call's tool message.
    expect(h.fake.requests[1].messages.at(-1)).toMatchObject({ role: 'tool', content: '395' });
  });

  it('a tool call that cannot be read gets one repair turn, never taken as the answer', async () => {
    const broken = '<tool_call>\n{"name": "calculator", "arguments": {"expression": (17*23)+4}}\n</tool_call>';
    h.fake.script({ content: broken }, { content: fenced('(17*23)+4') }, { content: 'The answer is 395.' });
    const { handle, result, transcript } = await h.run({
      goal: 'What is (17*23)+4? Use the calculator tool.',
      tools: ['calculator'],
    });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'The answer is 395.', iterations: 3 });
    expect(result!.waves.map((wave) => wave.calls.map((call) => call.result))).toEqual([['395']]);
    // The next request has the model's unreadable reply, then the repair: what could not be read, and how to write a call.
    const repair = h.fake.requests[1].messages;
    expect(repair.at(-2)).toMatchObject({ role: 'assistant', content: broken });
    expect(repair.at(-1)).toMatchObject({ role: 'user' });
    const told = String(repair.at(-1)!.content);
    expect(told).toMatch(
      /^Your reply could not be used: your call of calculator could not be read as a tool call \(the JSON is not valid/,
    );
    expect(told).toContain('nothing was run');
    expect(told).toContain('<tool_call>\n{"name": "calculator", "arguments": {');
    expect(transcript.filter((m) => m.role === 'user')).toHaveLength(2);
    await recordHistory('text-tool-call-repair', handle);
  });

  it('a tool call still unreadable after its repair turns opens the circuit breaker, not the answer', async () => {
    const broken = "{'name': 'calculator', 'arguments': {'expression': '2+2'}}";
    h.fake.script({ content: broken }, { content: broken }, { content: broken });
    const { result } = await h.run({ goal: 'What is 2+2? Use the calculator tool.', tools: ['calculator'] });

    h.fake.assertDone();
    expect(result!.status).toBe('circuit_open');
    expect(result!.answer).toMatch(
      /^Circuit open: \(planner\) failed 3 times in a row: your call of calculator could not be read/,
    );
    expect(result!.answer).not.toBe(broken);
    expect(result!.waves).toEqual([]);
  });

  it('JSON data and a tool named in prose stay the answer; a call quoted after prose gets a repair turn, never the answer', async () => {
    const data = '```json\n{"name": "Bob", "email": "bob@example.com"}\n```';
    h.fake.script({ content: data });
    const first = await h.run({ goal: 'Show Bob as JSON', tools: ['calculator', 'get_user'] });
    expect(first.result).toMatchObject({ status: 'completed', answer: data, waves: [] });

    const named = 'I would use the calculator tool for that.';
    h.fake.script({ content: named });
    const second = await h.run({ goal: 'Which tool adds numbers?', tools: ['calculator'] });
    expect(second.result).toMatchObject({ status: 'completed', answer: named, waves: [] });

    const quoted = `To call it yourself, send:\n${fenced('1+1')}`;
    h.fake.script({ content: quoted }, { content: 'Ask me to add them and I will.' });
    const third = await h.run({ goal: 'How do I call the calculator?', tools: ['calculator'] });
    expect(third.result).toMatchObject({ status: 'completed', answer: 'Ask me to add them and I will.', waves: [] });
    const told = String(h.fake.requests.at(-1)!.messages.at(-1)!.content);
    expect(told).toMatch(
      /^Your reply could not be used: your call of calculator could not be read as a tool call \(it is written inside prose\)/,
    );
    h.fake.assertDone();
  });

  it('toolCallText off: a call written as text is the answer', async () => {
    h.fake.script({ content: fenced('2+2') });
    const { result } = await h.run({ goal: 'What is 2+2?', tools: ['calculator'], toolCallText: 'off' });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: fenced('2+2'), iterations: 1, waves: [] });
  });
});
