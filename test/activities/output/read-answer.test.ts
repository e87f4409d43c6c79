import { describe, expect, it } from 'vitest';
import { readAnswer } from '../../../src/activities/output/read-answer';

describe('readAnswer', () => {
  it.each([
    ['the whole text', '{"a": 1}', { a: 1 }],
    ['a scalar', ' 42 ', 42],
    ['a ```json fence', 'Here it is:\n```json\n{"a": 1}\n```\nDone.', { a: 1 }],
    ['a fence of no language, with a trailing comma', '```\n[1, 2,]\n```', [1, 2]],
    ['one object in prose', 'The total is {"a": {"b": [1]}} as requested.', { a: { b: [1] } }],
  ])('reads %s', (_name, text, value) => {
    expect(readAnswer(text)).toEqual({ value });
  });

  it.each([
    ['empty text', '  ', /empty/],
    ['prose', 'About twelve euros.', /not JSON/],
    ['two values in prose', 'Either {"a": 1} or {"a": 2}.', /holds 2 JSON values/],
    ['two fences', '```json\n{"a": 1}\n```\n```json\n{"a": 2}\n```', /holds 2 JSON blocks/],
    ['a fence of broken JSON', "```json\n{'a': 1}\n```", /the JSON is not valid/],
    ['an object left open in prose', 'The total is {"a": 1', /not JSON/],
  ])('refuses %s, saying why', (_name, text, problem) => {
    const read = readAnswer(text);
    expect(read).toEqual({ error: expect.stringMatching(problem) });
  });
});
