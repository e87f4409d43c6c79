import { describe, expect, it } from 'vitest';
import { AgentLoopInputSchema } from '../../../src/contract/agent-loop';
import { describeIssues } from '../../../src/contract/issues';

/** What `AgentLoopInputSchema` (the client's and the CLI's check) says of an input with `output`. */
function problems(output: unknown): string | undefined {
  const parsed = AgentLoopInputSchema.safeParse({ goal: 'total of invoice 7', output });
  return parsed.success ? undefined : describeIssues(parsed.error.issues, 'input');
}

describe('AgentLoopInput.output', () => {
  it('takes a JSON Schema object', () => {
    expect(problems({ type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] })).toBe(
      undefined,
    );
    expect(problems({})).toBe(undefined);
  });

  it.each([
    ['a string', 'number', /output: the output schema must be a JSON Schema object/],
    ['an array', [{ type: 'number' }], /output: the output schema must be a JSON Schema object/],
    ['an unknown type', { type: 'invoice' }, /output: the output schema is not a valid JSON Schema: .*type/],
    ['a keyword of the wrong kind', { type: 'object', required: 'amount' }, /output: the output schema is not a valid/],
  ])('refuses %s, saying why', (_name, output, message) => {
    expect(problems(output)).toMatch(message);
  });

  it('outputRepairs is a whole number of at least 0', () => {
    expect(AgentLoopInputSchema.safeParse({ goal: 'x', outputRepairs: 0 }).success).toBe(true);
    expect(AgentLoopInputSchema.safeParse({ goal: 'x', outputRepairs: -1 }).success).toBe(false);
  });
});
