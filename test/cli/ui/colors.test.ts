import { describe, expect, it } from 'vitest';
import { colorEnabled } from '../../../src/cli/ui/colors';

describe('colorEnabled', () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: false };

  it('colorEnabled: on at a terminal, off when piped', () => {
    expect(colorEnabled(tty, { TERM: 'xterm-256color' })).toBe(true);
    expect(colorEnabled(pipe, { TERM: 'xterm-256color' })).toBe(false);
  });

  it('colorEnabled: NO_COLOR (any non-empty value) and TERM=dumb turn it off; NO_COLOR wins over FORCE_COLOR', () => {
    expect(colorEnabled(tty, { NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled(tty, { NO_COLOR: '' })).toBe(true);
    expect(colorEnabled(tty, { TERM: 'dumb' })).toBe(false);
    expect(colorEnabled(tty, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false);
  });

  it('colorEnabled: FORCE_COLOR turns it on anywhere, except FORCE_COLOR=0', () => {
    expect(colorEnabled(pipe, { FORCE_COLOR: '1' })).toBe(true);
    expect(colorEnabled(pipe, { FORCE_COLOR: '0' })).toBe(false);
  });
});
