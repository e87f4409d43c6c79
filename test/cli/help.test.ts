import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program';

/** What `waveloop … --help` prints: commander's help of the command, as `--help` shows it. */
function help(...words: string[]): string {
  let command: Command = buildProgram();
  for (const word of words) command = command.commands.find((c) => c.name() === word)!;
  return command.helpInformation().replace(/\s+/g, ' ');
}

describe('waveloop --help', () => {
  it('the top-level help and serve --help say that serve is where the web inbox is', () => {
    expect(help()).toContain('`waveloop serve` opens the web inbox');
    expect(help('serve')).toContain('serve the web inbox (every decision waiting for a person');
  });
});
