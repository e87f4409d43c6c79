import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { textToolCalls } from '../../../src/activities/model/text-tool-calls';
import { backOfficeAgent } from '../../../src/demo/agents';

const OFFERED = new Set(['calculator', 'get_weather', 'search_notes']);

/** Ids call_1, call_2, ... so a test sees how many were taken. */
function ids(): () => string {
  let n = 0;
  return () => `call_${++n}`;
}

const calc = (expression: string) => ['calculator', { expression }] as const;
const weather = (city: string) => ['get_weather', { city }] as const;

describe('textToolCalls', () => {
  it.each<[string, string, (readonly [string, object])[], string | null]>([
    [
      'a ```json fence (Qwen2.5-Coder 1.5B)',
      '```json\n{\n  "name": "calculator",\n  "arguments": {\n    "expression": "(17*23)+4"\n  }\n}\n```',
      [calc('(17*23)+4')],
      null,
    ],
    [
      'a fence with no language',
      '```\n{"name": "calculator", "arguments": {"expression": "2+2"}}\n```',
      [calc('2+2')],
      null,
    ],
    [
      'a ```tool_call fence',
      '```tool_call\n{"name": "calculator", "arguments": {"expression": "2+2"}}\n```',
      [calc('2+2')],
      null,
    ],
    [
      'a ```tool fence with "parameters"',
      '```tool\n{"name": "get_weather", "parameters": {"city": "Paris"}}\n```',
      [weather('Paris')],
      null,
    ],
    [
      'an array of calls in one fence',
      '```json\n[\n  {"name": "get_weather", "arguments": {"city": "Paris"}},\n  {"name": "get_weather", "arguments": {"city": "Oslo"}}\n]\n```',
      [weather('Paris'), weather('Oslo')],
      null,
    ],
    [
      'several objects in one fence (Qwen2.5-Coder 1.5B)',
      '```json\n{"name": "calculator", "arguments": {"expression": "1+1"}}\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n```',
      [calc('1+1'), weather('Oslo')],
      null,
    ],
    [
      'two fences',
      '```json\n{"name": "calculator", "arguments": {"expression": "1+1"}}\n```\n\n```json\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n```',
      [calc('1+1'), weather('Oslo')],
      null,
    ],
    [
      '<tools> with one call a line',
      '<tools>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n{"name": "calculator", "arguments": {"expression": "3*3"}}\n</tools>',
      [weather('Paris'), calc('3*3')],
      null,
    ],
    [
      '<tool_call> (Qwen/Hermes)',
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
      [weather('Paris')],
      null,
    ],
    [
      'two <tool_call> blocks',
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lima"}}\n</tool_call>',
      [weather('Paris'), weather('Lima')],
      null,
    ],
    [
      '<tool_call> without its closing tag at the end',
      '<tool_call>\n{"name": "calculator", "arguments": {"expression": "2**10"}}',
      [calc('2**10')],
      null,
    ],
    [
      'prose before <tool_call>',
      'I need the weather first.\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
      [weather('Paris')],
      'I need the weather first.',
    ],
    ['<function=name> (Llama 3.x)', '<function=get_weather>{"city": "Paris"}</function>', [weather('Paris')], null],
    [
      'prose before <function=name>',
      'Let me check.\n<function=calculator>{"expression": "6*7"}</function>',
      [calc('6*7')],
      'Let me check.',
    ],
    [
      '<function=name> with <parameter=key> lines inside <tool_call> (Qwen3-Coder)',
      '<tool_call>\n<function=get_weather>\n<parameter=city>\nSão Paulo\n</parameter>\n</function>\n</tool_call>',
      [weather('São Paulo')],
      null,
    ],
    ['a bare call object', '{"name": "calculator", "arguments": {"expression": "2+2"}}', [calc('2+2')], null],
    [
      'a bare array of calls',
      '[{"name": "calculator", "arguments": {"expression": "1"}}, {"name": "calculator", "arguments": {"expression": "2"}}]',
      [calc('1'), calc('2')],
      null,
    ],
    [
      'arguments as a JSON string',
      '{"name": "calculator", "arguments": "{\\"expression\\": \\"2+2\\"}"}',
      [calc('2+2')],
      null,
    ],
    ['only a name: no arguments', '<tool_call>{"name": "search_notes"}</tool_call>', [['search_notes', {}]], null],
    [
      'an id besides name and arguments',
      '{"id": "0", "name": "calculator", "arguments": {"expression": "2+2"}}',
      [calc('2+2')],
      null,
    ],
    [
      'the OpenAI shape',
      '```json\n{"id": "call_0", "type": "function", "function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}}\n```',
      [weather('Paris')],
      null,
    ],
    [
      '"type": "function" beside name and parameters (Llama 3.2)',
      '{"type": "function", "name": "get_weather", "parameters": {"city": "Paris"}}',
      [weather('Paris')],
      null,
    ],
    [
      'nested objects and braces inside strings',
      '<tool_call>\n{"name": "search_notes", "arguments": {"query": "a } b { c ] \\" </tool_call>", "filter": {"tags": ["x", {"y": [1, 2]}]}}}\n</tool_call>',
      [['search_notes', { query: 'a } b { c ] " </tool_call>', filter: { tags: ['x', { y: [1, 2] }] } }]],
      null,
    ],
    [
      '"function" naming the tool (Qwen2.5-Coder 1.5B)',
      '```json\n{\n  "function": "get_weather",\n  "arguments": {\n    "city": "Paris"\n  }\n}\n```',
      [weather('Paris')],
      null,
    ],
    [
      'a call followed by the result the model invented (Qwen2.5-Coder 1.5B)',
      '{"name": "calculator", "arguments": {"expression": "2+2"}}\n<tool_response>\n4\n</tool_response>\nThe answer is 4.',
      [calc('2+2')],
      null,
    ],
    [
      'doubled braces (Qwen2.5-Coder 1.5B on llama-server)',
      '{{"name": "calculator", "arguments": {"expression": "(17*23)+4"}}}',
      [calc('(17*23)+4')],
      null,
    ],
    [
      'every brace doubled, as a template escapes them',
      '{{"name": "calculator", "arguments": {{"expression": "2+2"}}}}',
      [calc('2+2')],
      null,
    ],
    [
      'doubled braces inside <tool_call>',
      '<tool_call>\n{{"name": "get_weather", "arguments": {"city": "Paris"}}}\n</tool_call>',
      [weather('Paris')],
      null,
    ],
    [
      'a trailing comma',
      '```json\n{"name": "calculator", "arguments": {"expression": "2+2"},}\n```',
      [calc('2+2')],
      null,
    ],
    [
      'trailing commas in the arguments and an array',
      '[{"name": "get_weather", "arguments": {"city": "Paris",},},]',
      [weather('Paris')],
      null,
    ],
    [
      'an unclosed <tool_call> missing its last brace',
      '<tool_call>\n{"name": "calculator", "arguments": {"expression": "2+2"}',
      [calc('2+2')],
      null,
    ],
    [
      'a <tool_call> whose JSON misses its last brace before the closing tag',
      '<tool_call>\n{"name": "calculator", "arguments": {"expression": "2+2"}\n</tool_call>',
      [calc('2+2')],
      null,
    ],
    [
      'an unclosed fence at the end',
      '```json\n{"name": "calculator", "arguments": {"expression": "2+2"}}',
      [calc('2+2')],
      null,
    ],
    [
      'a fence in another language around a call',
      '```python\n{"name": "calculator", "arguments": {"expression": "2+2"}}\n```',
      [calc('2+2')],
      null,
    ],
    [
      'prose after a fenced call, kept as what the model said',
      '```json\n{"name": "calculator", "arguments": {"expression": "2+2"}}\n```\nThis computes the sum.',
      [calc('2+2')],
      'This computes the sum.',
    ],
    [
      'prose after a <tool_call>',
      '<tool_call>\n{"name": "calculator", "arguments": {"expression": "2+2"}}\n</tool_call>\nThe answer will follow.',
      [calc('2+2')],
      'The answer will follow.',
    ],
    [
      'an unclosed <tool_call> followed by prose',
      '<tool_call>\n{"name": "calculator", "arguments": {"expression": "2+2"}} and then I will answer',
      [calc('2+2')],
      'and then I will answer',
    ],
    [
      'Mistral [TOOL_CALLS] with an array',
      '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "calculator", "arguments": {"expression": "1+1"}}]',
      [weather('Paris'), calc('1+1')],
      null,
    ],
    [
      'Mistral [TOOL_CALLS]name[ARGS] (v11 tokenizer)',
      '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]calculator[CALL_ID]a1b2c3d4e[ARGS]{"expression": "1+1"}',
      [weather('Paris'), calc('1+1')],
      null,
    ],
    [
      'Llama 3.x <|python_tag|> with the end-of-message token',
      '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}<|eom_id|>',
      [weather('Paris')],
      null,
    ],
    [
      'Llama 3.x <|python_tag|> with two calls separated by ;',
      '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": "calculator", "parameters": {"expression": "1+1"}}',
      [weather('Paris'), calc('1+1')],
      null,
    ],
    [
      'Llama 3.x <function=name> with prose before it and <|eot_id|> after',
      'I will look it up.\n<function=get_weather>{"city": "Paris"}</function><|eot_id|>',
      [weather('Paris')],
      'I will look it up.',
    ],
    [
      "Llama 3.2's pythonic list of calls",
      `[get_weather(city="Paris"), calculator(expression='(17*23)+4')]`,
      [weather('Paris'), calc('(17*23)+4')],
      null,
    ],
    [
      'a pythonic call after <|python_tag|>, with a number, a boolean and a JSON list',
      '<|python_tag|>[search_notes(limit=3, exact=True, tags=["a", "b"])]<|eom_id|>',
      [['search_notes', { limit: 3, exact: true, tags: ['a', 'b'] }]],
      null,
    ],
    [
      'two bare calls separated by a comma (Qwen2.5-Coder 0.5B)',
      '{"name": "calculator", "arguments": {"expression": "1+1"}},\n{"name": "get_weather", "arguments": {"city": "Oslo"}}',
      [calc('1+1'), weather('Oslo')],
      null,
    ],
    [
      'a bare call followed by the result the model invented as JSON (Qwen2.5-Coder 0.5B)',
      '{"name": "calculator", "arguments": {"expression": "(17*23)+4"}}\n{"result": "395"}',
      [calc('(17*23)+4')],
      '{"result": "395"}',
    ],
    [
      '// comments in the JSON (Qwen2.5-Coder 0.5B and 1.5B)',
      '```json\n{\n  "name": "get_weather",\n  "arguments": {\n    "city": "Paris" // the capital, "quoted"\n  }\n}\n```',
      [weather('Paris')],
      null,
    ],
    [
      'whitespace around the blocks',
      '\n\n  ```json\n{"name": "calculator", "arguments": {"expression": "2+2"}}\n```  \n',
      [calc('2+2')],
      null,
    ],
  ])('textToolCalls: reads %s', (_form, content, expected, text) => {
    const result = textToolCalls(content, OFFERED, ids());
    expect(result).toEqual({
      calls: expected.map(([name, args], i) => ({
        id: `call_${i + 1}`,
        type: 'function',
        function: { name, arguments: JSON.stringify(args) },
      })),
      text,
    });
  });

  it.each([
    ['an empty reply', ''],
    ['whitespace only', ' \n '],
    ['prose that mentions a tool', 'I used the calculator tool: (17*23)+4 = 395.'],
    ['prose before a <tool_response>, without calls', 'The calculator said:\n<tool_response>\n395\n</tool_response>'],
    ['a fenced block that is data, not a call', '```json\n{"city": "Paris", "temperature": 21}\n```'],
    ['a fenced block naming a tool not offered', '```json\n{"name": "delete_everything", "arguments": {}}\n```'],
    [
      'a <tool_call> to a tool not offered',
      '<tool_call>\n{"name": "send_email", "arguments": {"to": "bob"}}\n</tool_call>',
    ],
    ['a <function=name> not offered', '<function=send_email>{"to": "bob"}</function>'],
    ['no arguments but another key', '{"name": "search_notes", "id": "1"}'],
    ['an empty array', '[]'],
    ['a bare JSON string', '"calculator"'],
    ['a bare list of words', '[yes, no]'],
    ['a list of tools that describes them', '[{"name": "calculator", "description": "Evaluates arithmetic"}]'],
    [
      'a <tool_call> to a tool not offered, with prose before it',
      'Sure.\n<tool_call>{"name": "rm", "arguments": {}}</tool_call>',
    ],
  ])('textToolCalls: leaves %s an answer', (_case, content) => {
    expect(textToolCalls(content, OFFERED, ids())).toBeUndefined();
  });

  it.each<[string, string, string[], string]>([
    [
      'arguments that are an array',
      '{"name": "calculator", "arguments": ["2+2"]}',
      ['calculator'],
      'the arguments of calculator must be a JSON object',
    ],
    [
      'arguments that are a number',
      '{"name": "calculator", "arguments": 4}',
      ['calculator'],
      'the arguments of calculator must be a JSON object',
    ],
    [
      'arguments that are a string that is not JSON',
      '{"name": "calculator", "arguments": "2+2"}',
      ['calculator'],
      'the arguments of calculator must be a JSON object',
    ],
    [
      'arguments as a JSON string of an array',
      '{"name": "calculator", "arguments": "[1]"}',
      ['calculator'],
      'the arguments of calculator must be a JSON object',
    ],
    [
      '<function=name> whose body is an array',
      '<function=calculator>["2+2"]</function>',
      ['calculator'],
      'the arguments of calculator must be a JSON object',
    ],
    [
      '"function" and "name" both',
      '{"function": "calculator", "name": "calculator", "arguments": {"expression": "1"}}',
      ['calculator'],
      'a call has both "function" and "name"',
    ],
    [
      'an extra top-level key',
      '{"name": "calculator", "arguments": {"expression": "2+2"}, "reason": "math"}',
      ['calculator'],
      'a call has other keys (reason)',
    ],
    [
      'both arguments and parameters',
      '{"name": "calculator", "arguments": {"expression": "1"}, "parameters": {"expression": "2"}}',
      ['calculator'],
      'a call has both "arguments" and "parameters"',
    ],
    [
      'a type other than function',
      '{"type": "tool", "name": "calculator", "arguments": {"expression": "2+2"}}',
      ['calculator'],
      'a call has other keys ("type": "tool")',
    ],
    [
      'an OpenAI shape with an extra key',
      '{"type": "function", "function": {"name": "calculator", "arguments": "{}"}, "index": 0}',
      ['calculator'],
      'a call has other keys (index)',
    ],
    [
      'single quotes',
      "<tool_call>\n{'name': 'calculator', 'arguments': {'expression': '2+2'}}\n</tool_call>",
      ['calculator'],
      'the JSON is not valid',
    ],
    [
      'one good call and one to a tool not offered',
      '<tool_call>{"name": "calculator", "arguments": {"expression": "1"}}</tool_call>\n<tool_call>{"name": "rm", "arguments": {}}</tool_call>',
      ['calculator'],
      '"rm" is not one of your tools',
    ],
    [
      'JSON broken inside the arguments',
      '<tool_call>\n{"name": "calculator", "arguments": {"expression": (17*23)+4}}\n</tool_call>',
      ['calculator'],
      'the JSON is not valid',
    ],
    [
      'a doubled-brace call with a broken string',
      '{{"name": "calculator", "arguments": {"expression": "(17*23)+4}}}',
      ['calculator'],
      'the JSON is not',
    ],
    [
      'a pythonic call that does not parse',
      '[calculator(expression=(17*23)+4)]',
      ['calculator'],
      'the list of calls is not valid',
    ],
    [
      'a Mistral call whose arguments do not parse',
      '[TOOL_CALLS]get_weather[ARGS]{city: Paris}',
      ['get_weather'],
      'the JSON is not valid',
    ],
    [
      'a <function=name> whose JSON does not parse',
      '<function=get_weather>{"city": Paris}</function>',
      ['get_weather'],
      'the JSON is not valid',
    ],
    // A call written inside prose is never the answer, however it is meant.
    [
      'prose followed by a fenced call',
      'Here is the call:\n```json\n{"name": "calculator", "arguments": {"expression": "2+2"}}\n```',
      ['calculator'],
      'it is written inside prose',
    ],
    [
      'prose followed by bare JSON',
      'Call: {"name": "calculator", "arguments": {"expression": "2+2"}}',
      ['calculator'],
      'it is written inside prose',
    ],
    [
      'prose that quotes a pythonic call',
      'You could write [calculator(expression="1+1")] yourself.',
      ['calculator'],
      'it is written inside prose',
    ],
    [
      'prose that quotes a doubled-brace call',
      'You would write {{"name": "calculator", "arguments": {"expression": "1"}}}.',
      ['calculator'],
      'it is written inside prose',
    ],
  ])('textToolCalls: asks for a repair of %s', (_case, content, tools, problem) => {
    const result = textToolCalls(content, OFFERED, ids());
    expect(result).toEqual({ unreadable: { tools, problem: expect.stringContaining(problem) as string } });
  });

  it('textToolCalls: takes an id only for each call it returns', () => {
    const newId = ids();
    expect(textToolCalls('<tool_call>{"name": "rm"}</tool_call>', OFFERED, newId)).toBeUndefined();
    expect(textToolCalls('{"name": "search_notes"}', OFFERED, newId)).toMatchObject({ calls: [{ id: 'call_1' }] });
  });
});

/** One reply of the corpus: documented formats of each dialect (hand-written), and replies real models wrote. */
interface CorpusReply {
  source: 'documented' | 'reported' | 'real';
  model: string;
  scenario: string;
  expect: 'call' | 'answer';
  tool?: string;
  /**
   * What a reply that calls a tool must come to: these calls with these arguments, or a repair turn
   * (the model is asked again) naming these tools.
   */
  outcome?: { calls: Array<{ name: string; args: unknown }> } | { repair: string[] };
  content: string;
}

const CORPUS: CorpusReply[] = fs
  .readFileSync(path.join(__dirname, 'fixtures', 'text-replies.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as CorpusReply);

/** The tools the demo's agent offers, as in the corpus's scenarios. */
const DEMO_TOOLS = new Set(backOfficeAgent.tools ?? []);

describe('textToolCalls over the corpus of replies (test/activities/model/fixtures/text-replies.jsonl)', () => {
  it.each(CORPUS.map((reply, i) => [`${i + 1} (${reply.source}, ${reply.model}, ${reply.scenario})`, reply] as const))(
    'textToolCalls: corpus reply %s is read as its expected calls and arguments, or as its expected repair turn, when it calls a tool, and stays the answer otherwise',
    (_name, reply) => {
      const result = textToolCalls(reply.content, DEMO_TOOLS, ids());
      if (reply.expect === 'answer') {
        expect(result).toBeUndefined();
        return;
      }
      expect(result).toBeDefined();
      const outcome: NonNullable<CorpusReply['outcome']> =
        result && 'calls' in result
          ? {
              calls: result.calls.map((call) => ({
                name: call.function.name,
                args: JSON.parse(call.function.arguments) as unknown,
              })),
            }
          : { repair: result?.unreadable.tools ?? [] };
      // Exactly the calls and arguments expected, or exactly a repair turn: not merely the tool's name somewhere.
      expect(outcome).toEqual(reply.outcome);
      const tools = 'calls' in outcome ? outcome.calls.map((call) => call.name) : outcome.repair;
      if (reply.tool) expect(tools).toContain(reply.tool);
    },
  );

  it('textToolCalls: the corpus holds every dialect documented', () => {
    const documented = CORPUS.filter((reply) => reply.source === 'documented').map((reply) => reply.content);
    for (const marker of [
      '<tool_call>',
      '<function=',
      '[TOOL_CALLS] [',
      '[ARGS]',
      '<|python_tag|>',
      '"type": "function"',
      '{{',
    ])
      expect(documented.some((content) => content.includes(marker))).toBe(true);
  });
});
