import { describe, expect, it } from 'vitest';
import { namedCallTools, repairFeedback } from '../../../src/activities/model/tool-call-intent';

const OFFERED = new Set(['calculator', 'get_weather']);

describe('namedCallTools', () => {
  it.each<[string, string, string[]]>([
    ['bare JSON naming an offered tool', '{"name": "calculator", "arguments": 4}', ['calculator']],
    ['doubled braces', '{{"name": "calculator", "arguments": {"expression": "1"', ['calculator']],
    ['a fence of any language', "```python\n{'name': 'calculator', 'arguments': {}}\n```", ['calculator']],
    ['prose before a dialect marker', 'Sure.\n<tool_call>{"function": "get_weather", "parameters": {', ['get_weather']],
    ['<function=name> with its arguments', '<function=calculator>{broken}</function>', ['calculator']],
    ['Mistral [ARGS]', '[TOOL_CALLS]get_weather[ARGS]{city: Paris}', ['get_weather']],
    ['prose that names a tool', 'I used the calculator: 395.', []],
    ['a call after prose (never the answer)', 'Send this:\n{"name": "calculator", "arguments": {}}', ['calculator']],
    ['a tool not offered', '<tool_call>{"name": "rm", "arguments": {}}</tool_call>', []],
    ['a name without arguments', '[{"name": "calculator", "description": "arithmetic"}]', []],
  ])('namedCallTools: %s', (_case, reply, tools) => {
    expect(namedCallTools(reply, OFFERED)).toEqual(tools);
  });
});

describe('repairFeedback', () => {
  it('repairFeedback: says what could not be read, that nothing ran, and how to write the call', () => {
    const feedback = repairFeedback({ tools: ['calculator'], problem: 'the JSON is not valid' });
    expect(feedback).toContain('your call of calculator could not be read as a tool call (the JSON is not valid)');
    expect(feedback).toContain('nothing was run');
    expect(feedback).toContain('<tool_call>\n{"name": "calculator", "arguments": {');
    expect(feedback).toContain('reply in plain text without a call');
  });
});
