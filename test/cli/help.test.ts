import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program';

/** What `waveloop … --help` prints: commander's help of the command, as `--help` shows it. */
function help(...words: string[]): string {
  let command: Command = buildProgram();
  for (const word of words) command = command.commands.find((c) => c.name() === word)!;
  let printed = '';
  command.configureOutput({ writeOut: (text) => (printed += text) });
  command.outputHelp();
  return printed.replace(/\s+/g, ' ');
}

describe('waveloop --help', () => {
  it('the top-level help and serve --help say that serve is where the web inbox is', () => {
    expect(help()).toContain('`waveloop serve` opens the web inbox');
    expect(help('serve')).toContain('serve the web inbox (every decision waiting for a person');
  });
});

describe('waveloop eval export --help', () => {
  it("lists export's own options once, not eval's as global ones, and offers only the states a run ends in", () => {
    const text = help('eval', 'export');
    expect(text.match(/--agent <name>/g)).toHaveLength(1);
    expect(text).not.toContain('--concurrency');
    expect(text).toContain('--config <file>');
    expect(text).toContain('choices: "completed", "max_iterations"');
    expect(text).not.toMatch(/"running"|"waiting_for_approval"/);
    expect(text).toContain('"failed"');
  });
});
