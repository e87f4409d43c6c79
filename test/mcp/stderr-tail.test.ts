import { describe, expect, it } from 'vitest';
import { StderrTail } from '../../src/mcp/stderr-tail';

describe('StderrTail', () => {
  it('StderrTail: joins lines split across chunks and returns each line once it is complete', () => {
    const tail = new StderrTail();
    expect(tail.push('Server star')).toEqual([]);
    expect(tail.push('ted\r\nListening\n\nWarn')).toEqual(['Server started', 'Listening']);
    expect(tail.text()).toBe('Server started\nListening\nWarn');
  });

  it('StderrTail: keeps only the last lines, each clipped', () => {
    const tail = new StderrTail(2, 10);
    tail.push('one\ntwo\nthree\n');
    tail.push(`${'x'.repeat(30)}\n`);
    expect(tail.text()).toBe(`three\n${'x'.repeat(9)}…`);
  });
});
