import { describe, expect, it } from 'vitest';
import { parseDataset } from '../../../src/cli/eval/dataset';

describe('parseDataset', () => {
  it('reads one case a line, skipping blank lines and comments', () => {
    const text =
      '# refunds\n{"goal":" Refund 1042 ","expect":{"contains":"refunded","tone":"warm"},"tags":["x"]}\n\n{"goal":"b"}\n';
    expect(parseDataset(text, ['tone'])).toEqual({
      cases: [{ goal: 'Refund 1042', expect: { contains: 'refunded', tone: 'warm' }, tags: ['x'] }, { goal: 'b' }],
    });
  });

  it('names the first bad line and what is wrong with it', () => {
    expect(parseDataset('{"goal":"a"}\n{goal: b}')).toEqual({ problem: expect.stringMatching(/^line 2: not JSON/) });
    expect(parseDataset('{"goal":""}')).toEqual({ problem: expect.stringMatching(/^line 1: goal: /) });
    expect(parseDataset('{"goal":"a","expect":{"maxTokens":-1}}')).toEqual({
      problem: expect.stringMatching(/^line 1: expect.maxTokens: /),
    });
    expect(parseDataset('{"goal":"a","extra":1}')).toEqual({ problem: expect.stringMatching(/^line 1: .*extra/) });
    expect(parseDataset('{"goal":"a","expect":{"tone":"warm"}}', ['polite'])).toEqual({
      problem:
        "line 1: expect.tone names no scorer (built in: contains, equals, output, toolsCalled, maxIterations, maxTokens, status, judge, or the project's polite)",
    });
    expect(parseDataset('\n# nothing\n')).toEqual({ problem: expect.stringMatching(/no cases/) });
  });
});
