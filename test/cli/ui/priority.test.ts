import { describe, expect, it } from 'vitest';
import { renderPriority } from '../../../src/cli/ui/priority';

describe('renderPriority', () => {
  it('renderPriority: priority, fairness key and weight as list and status show them; – without a Priority', () => {
    expect(renderPriority({ priorityKey: 2, fairnessKey: 'acme', fairnessWeight: 2.5 })).toBe('2 · acme ×2.5');
    expect(renderPriority({ priorityKey: 1 })).toBe('1');
    expect(renderPriority({ fairnessKey: 'globex' })).toBe('3 · globex');
    expect(renderPriority(undefined)).toBe('–');
  });
});
