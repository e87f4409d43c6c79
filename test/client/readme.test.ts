import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/client/cli';
import { ROOT } from '../support/cli';

/** The README's section `## <title>`, up to the next section. */
function section(file: string, title: string): string {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const start = text.indexOf(`## ${title}\n`);
  expect(start, `${file} has no section "${title}"`).toBeGreaterThanOrEqual(0);
  const end = text.indexOf('\n## ', start + 1);
  // Markdown wraps lines anywhere: read the section as one line.
  return text.slice(start, end < 0 ? undefined : end).replace(/\s+/g, ' ');
}

/** Every command of `program` with its path (`run`, `server start`, …), depth first. */
function commands(program: Command, parents: string[] = []): Array<{ path: string[]; command: Command }> {
  return program.commands
    .filter((command) => command.name() !== 'help')
    .flatMap((command) => [{ path: [...parents, command.name()], command }, ...commands(command, [...parents, command.name()])]);
}

describe('README and docs', () => {
  it('the README\'s CLI section names every command and every option `--help` shows', () => {
    const cli = section('README.md', 'The CLI');
    const program = buildProgram(() => undefined);
    for (const option of program.options) expect(cli, `global option ${option.flags}`).toContain(option.long!);
    expect(cli).toContain('-h, --help');
    for (const { path: words, command } of commands(program)) {
      const [first, ...rest] = words;
      // `waveloop server start|stop|status` names three commands.
      const named = rest.length ? new RegExp(`waveloop ${first} [a-z|]*\\b${rest.join(' ')}\\b`) : new RegExp(`waveloop ${first}\\b`);
      expect(cli, `command ${words.join(' ')}`).toMatch(named);
      for (const option of command.options) expect(cli, `option ${option.flags} of ${words.join(' ')}`).toContain(option.long!);
    }
  });

  it('the README says how to type the CLI in a clone, and how `npm ci` fares with this lockfile', () => {
    expect(section('README.md', 'The CLI')).toContain('In a clone, type `npx waveloop <command>`');
    expect(section('README.md', 'Quick start')).toMatch(/Install with `npm install`, not `npm ci`: under npm 11, `npm ci` refuses this lockfile/);
  });

  it('docs/how-it-works.md names the first entry of a run\'s timeline as the Web UI does: the local activity\'s type', () => {
    const history = JSON.parse(fs.readFileSync(path.join(ROOT, 'test', 'replay', 'histories', 'task-complete.json'), 'utf8')) as {
      events: Array<{ eventType: string; markerRecordedEventAttributes?: { details: { data: { payloads: Array<{ data: string }> } } } }>;
    };
    const marker = history.events.find((event) => event.eventType === 'EVENT_TYPE_MARKER_RECORDED')!;
    const { activity_type } = JSON.parse(Buffer.from(marker.markerRecordedEventAttributes!.details.data.payloads[0].data, 'base64').toString()) as { activity_type: string };
    expect(activity_type).toBe('resolveRun');
    expect(section('docs/how-it-works.md', 'Reading a run in the Temporal Web UI')).toContain(`Its timeline shows \`${activity_type}\``);
  });
});
