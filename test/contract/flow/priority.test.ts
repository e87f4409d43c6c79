import { describe, expect, it } from 'vitest';
import { parseAgentLoopInput } from '../../../src/contract/agent-loop';
import { priorityFields, temporalPriority } from '../../../src/contract/flow/priority';
import { parseGoalInput } from '../../../src/contract/goal-tree/pursue-goal';

const refused = (input: Record<string, unknown>) => {
  try {
    parseAgentLoopInput({ goal: 'x', ...input });
  } catch (err) {
    return err as { type: string; message: string };
  }
  return undefined;
};

describe('priority and fairness fields', () => {
  it('priority 1 to 5, a fairness key of at most 64 bytes and a weight of 0.001 to 1000 are accepted', () => {
    const input = parseAgentLoopInput({ goal: 'x', priority: 1, fairnessKey: 'k'.repeat(64), fairnessWeight: 0.001 });
    expect(temporalPriority(input)).toEqual({ priorityKey: 1, fairnessKey: 'k'.repeat(64), fairnessWeight: 0.001 });
    expect(parseGoalInput({ goal: 'x', priority: 5, fairnessWeight: 1000 })).toMatchObject({ priority: 5 });
  });

  it('a priority outside 1 to 5, a fairness key over 64 bytes (UTF-8) or a weight out of range fails InvalidInput that says so', () => {
    for (const priority of [0, 6, 2.5, '1'])
      expect(refused({ priority }), String(priority)).toMatchObject({
        type: 'InvalidInput',
        message: expect.stringContaining('priority: priority must be a whole number from 1 to 5'),
      });
    // 22 three-byte characters: 22 characters, 66 bytes.
    for (const fairnessKey of ['k'.repeat(65), '€'.repeat(22)])
      expect(refused({ fairnessKey }), fairnessKey).toMatchObject({
        message: expect.stringContaining('fairnessKey: fairnessKey must be at most 64 bytes (UTF-8)'),
      });
    expect(refused({ fairnessKey: '' })?.message).toContain('fairnessKey must not be empty');
    for (const fairnessWeight of [0, 1001])
      expect(refused({ fairnessWeight })?.message).toContain('fairnessWeight must be a number from 0.001 to 1,000');
  });

  it('no fields: no Priority, so the run’s tasks inherit the workflow’s; only the fields set are handed on', () => {
    expect(temporalPriority({})).toBeUndefined();
    expect(temporalPriority({ fairnessKey: 'acme' })).toEqual({ fairnessKey: 'acme' });
    expect(priorityFields({ priority: 4, goal: 'x' } as never)).toEqual({ priority: 4 });
  });
});
