import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program';
import { ROOT } from '../support/cli';

/** The text of `file` (a path from the repository's root). */
function read(file: string): string {
  return fs.readFileSync(path.join(ROOT, file), 'utf8');
}

/** Markdown wraps lines anywhere: read a text as one line. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/** The section `## <title>` of `file`, up to the next section, as one line. */
function section(file: string, title: string): string {
  const text = read(file);
  const start = text.indexOf(`## ${title}\n`);
  expect(start, `${file} has no section "${title}"`).toBeGreaterThanOrEqual(0);
  const end = text.indexOf('\n## ', start + 1);
  return oneLine(text.slice(start, end < 0 ? undefined : end));
}

/** Every command of `program` with its path (`run`, `server start`, …), depth first. */
function commands(program: Command, parents: string[] = []): Array<{ path: string[]; command: Command }> {
  return program.commands
    .filter((command) => command.name() !== 'help')
    .flatMap((command) => [
      { path: [...parents, command.name()], command },
      ...commands(command, [...parents, command.name()]),
    ]);
}

/** Checks that `text` names every command of the CLI as `waveloop <command>` and, with `options`, every option `--help` shows. */
function expectEveryCommand(text: string, { options }: { options: boolean }): void {
  const program = buildProgram();
  if (options) {
    for (const option of program.options) expect(text, `global option ${option.flags}`).toContain(option.long!);
    expect(text).toContain('-h, --help');
  }
  for (const { path: words, command } of commands(program)) {
    const [first, ...rest] = words;
    // `waveloop server start|stop|status` names three commands (in a table: `start\|stop\|status`).
    const named = rest.length
      ? new RegExp(`waveloop ${first} [a-z|\\\\]*\\b${rest.join(' ')}\\b`)
      : new RegExp(`waveloop ${first}\\b`);
    expect(text, `command ${words.join(' ')}`).toMatch(named);
    if (options)
      for (const option of command.options)
        expect(text, `option ${option.flags} of ${words.join(' ')}`).toContain(option.long!);
  }
}

/** The files under `dir` (from the repository's root) whose names end with one of `extensions`. */
function filesUnder(dir: string, extensions: string[]): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(file, extensions);
    return extensions.some((extension) => entry.name.endsWith(extension)) ? [file] : [];
  });
}

/** The anchors GitHub gives the headings of a Markdown text (`## The CLI` → `the-cli`). */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading] of withoutCode(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count ? `${slug}-${count}` : slug);
  }
  return found;
}

/** A Markdown text without its fenced code blocks. */
function withoutCode(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
}

describe('README and docs', () => {
  it('docs/cli.md names every command and every option `--help` shows, and says how to type the CLI in a clone', () => {
    const cli = oneLine(read('docs/cli.md'));
    expectEveryCommand(cli, { options: true });
    expect(cli).toContain('In a clone, type `npx waveloop <command>`');
  });

  it("the README's CLI section names every command and links to docs/cli.md", () => {
    const cli = section('README.md', 'The CLI');
    expectEveryCommand(cli, { options: false });
    expect(cli).toContain('](docs/cli.md)');
  });

  it('docs/development.md says npm ci installs the lockfile as it is, and neither it nor the README says npm ci refuses it', () => {
    expect(section('docs/development.md', 'Installing')).toContain(
      '`npm ci` (npm 11.19) installs exactly what `package-lock.json` holds',
    );
    for (const page of ['README.md', 'docs/development.md'])
      expect(fs.readFileSync(path.join(ROOT, page), 'utf8'), page).not.toMatch(/npm ci`? refuses/);
  });

  it("the README's config example is examples/billing/waveloop.config.ts after its opening comment", () => {
    const example = read('examples/billing/waveloop.config.ts').replace(/^\/\*\*[\s\S]*?\*\/\n/, '');
    expect(read('README.md')).toContain(`\`\`\`ts\n${example}\`\`\`\n`);
  });

  it('docs/configuration.md names every environment variable waveloop reads', () => {
    const configuration = read('docs/configuration.md');
    const sources = [...filesUnder('src', ['.ts']), ...filesUnder('scripts', ['.js'])].map(read).join('\n');
    const variables = new Set([...sources.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b/g)].map(([, name]) => name!));
    expect(variables.size).toBeGreaterThan(30);
    for (const variable of variables) expect(configuration, variable).toMatch(new RegExp(`\`${variable}[\`=]`));
  });

  it('every relative link of the README and docs/ names a file that exists, and a heading of it', () => {
    for (const file of ['README.md', ...filesUnder('docs', ['.md'])]) {
      for (const [, href] of withoutCode(read(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(href!)) continue;
        const [target, anchor] = href!.split('#');
        const linked = target ? path.join(path.dirname(file), target) : file;
        expect(fs.existsSync(path.join(ROOT, linked)), `${file}: ${href}`).toBe(true);
        if (anchor && linked.endsWith('.md')) expect([...anchors(read(linked))], `${file}: ${href}`).toContain(anchor);
      }
    }
  });

  it("docs/how-it-works.md names the first entry of a run's timeline as the Web UI does: the local activity's type", () => {
    const history = JSON.parse(
      fs.readFileSync(path.join(ROOT, 'test', 'replay', 'histories', 'task-complete.json'), 'utf8'),
    ) as {
      events: Array<{
        eventType: string;
        markerRecordedEventAttributes?: { details: { data: { payloads: Array<{ data: string }> } } };
      }>;
    };
    const marker = history.events.find((event) => event.eventType === 'EVENT_TYPE_MARKER_RECORDED')!;
    const { activity_type } = JSON.parse(
      Buffer.from(marker.markerRecordedEventAttributes!.details.data.payloads[0].data, 'base64').toString(),
    ) as { activity_type: string };
    expect(activity_type).toBe('resolveRun');
    expect(section('docs/how-it-works.md', 'Reading a run in the Temporal Web UI')).toContain(
      `Its timeline shows \`${activity_type}\``,
    );
  });
});
