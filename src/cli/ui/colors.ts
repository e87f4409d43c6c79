import { createColors } from 'picocolors';
import type { Colors } from 'picocolors/types';
import { io, type CliIo } from '../io';

/**
 * The colours of what the CLI prints to stdout: statuses, waves, approvals and errors. Colour is on
 * only at a terminal: stdout is a TTY, `NO_COLOR` is unset or empty (no-color.org) and `TERM` is not
 * `dumb`; `FORCE_COLOR` (other than `0`) turns it on anywhere. Piped or redirected output is plain.
 */
export function colorEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

const decided = new WeakMap<CliIo, Colors>();

/** Colours for the command line's stdout (`io()`), decided once a command line. */
export const colors: Colors = new Proxy({} as Colors, {
  get(_, name: keyof Colors) {
    const given = io();
    let chosen = decided.get(given);
    if (!chosen) decided.set(given, (chosen = createColors(colorEnabled(given.stdout, given.env))));
    return chosen[name];
  },
});

/** What a status means to the reader, for its colour: done well, needs a person or stopped short, failed, or under way. */
export function statusColor(status: string): (text: string) => string {
  switch (status) {
    case 'completed':
    case 'achieved':
    case 'synthesized':
      return colors.green;
    case 'failed':
    case 'cycle_detected':
    case 'circuit_open':
    case 'invalid_output':
    case 'cancelled':
    case 'canceled':
    case 'terminated':
    case 'timed_out':
      return colors.red;
    case 'running':
      return colors.cyan;
    default:
      return colors.yellow;
  }
}
