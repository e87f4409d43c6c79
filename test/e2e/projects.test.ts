import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFixture, waveloop, type CliFixture } from '../support/cli';
import { testProject, type TestProject } from '../support/project';

/**
 * A project's own config through the CLI: `run` (its in-process worker), `tools` and `init` use
 * the project's `waveloop.config.ts`; a broken config stops a command before anything starts.
 */

const CONFIG = `import { defineAgent, defineConfig, defineTool } from 'waveloop';
import { z } from 'zod';

export default defineConfig({
  tools: [
    defineTool({
      name: 'shout',
      description: 'Says the text in capitals.',
      parameters: z.object({ text: z.string() }),
      execute: ({ text }) => text.toUpperCase(),
    }),
  ],
  agents: [defineAgent({ name: 'herald', system: 'You announce things loudly.', tools: ['shout'] })],
});
`;

describe('a project config through the CLI', () => {
  let cli: CliFixture;
  let project: TestProject;
  /** A task queue no worker polls, so that `run` starts its own worker with the project's tools. */
  let env: Record<string, string>;

  beforeAll(async () => {
    cli = await cliFixture('project', { worker: false });
    project = testProject({ 'waveloop.config.ts': CONFIG, 'jobs/.keep': '' });
    env = cli.env;
  });
  afterAll(async () => {
    project?.remove();
    await cli?.stop();
  });

  it('waveloop run in a subdirectory: the in-process worker offers the config tools (no demo) and runs them', async () => {
    cli.fake.script(
      { toolCalls: [{ name: 'shout', args: { text: 'doors open at nine' } }] },
      { content: 'Announced.' },
    );
    const out = await waveloop(['run', '--agent', 'herald', 'Announce the opening'], env, {
      cwd: path.join(project.dir, 'jobs'),
      process: true,
    });
    expect(out.stderr).toMatch(/running one in this process/);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('wave 1 · shout(text=doors open at nine) → DOORS OPEN AT NINE');
    expect(cli.fake.requests[0]!.tools!.map((tool) => tool.function.name)).toEqual(['shout']);
  });

  it('waveloop tools: the config tools and the built-in ones, each with its effect; with demo: true the demo toolkit too, with its approvals and effects', async () => {
    const plain = await waveloop(['tools'], env, { cwd: project.dir });
    expect(plain.code).toBe(0);
    expect(
      plain.stdout
        .trim()
        .split('\n')
        .map((line) =>
          line
            .split(/\s{2,}/)
            .slice(0, 4)
            .join(' '),
        ),
    ).toEqual([
      'NAME SOURCE EFFECT APPROVAL',
      'shout config write -',
      'task_complete built-in read -',
      'ask_question built-in read -',
      'converse built-in read -',
    ]);

    const withDemo = testProject({ 'team.config.ts': CONFIG.replace('agents: [', 'demo: true,\n  agents: [') });
    try {
      const out = await waveloop(['tools', '--json', '--config', 'team.config.ts'], env, { cwd: withDemo.dir });
      expect(out.code).toBe(0);
      const listing = JSON.parse(out.stdout) as Array<{
        name: string;
        source: string;
        requiresApproval: boolean;
        effect: string;
      }>;
      expect(listing.filter((tool) => tool.source === 'demo').map((tool) => [tool.name, tool.effect])).toEqual([
        ['search_users', 'read'],
        ['get_user', 'read'],
        ['update_user', 'idempotent'],
        ['resolve_holiday', 'read'],
        ['resolve_date_hint', 'read'],
        ['get_availability', 'read'],
        ['calculator', 'read'],
      ]);
      expect(listing.find((tool) => tool.name === 'update_user')).toMatchObject({
        source: 'demo',
        requiresApproval: true,
        effect: 'idempotent',
      });
    } finally {
      withDemo.remove();
    }
  });

  it('a broken config stops the command with one line naming the file and the problem; nothing starts', async () => {
    const broken = testProject({
      'waveloop.config.ts': CONFIG.replace("tools: ['shout']", "tools: ['shout', 'whisper']"),
    });
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-broken-config-'));
    try {
      // No TEMPORAL_ADDRESS: a run would start the embedded server in dataDir.
      const out = await waveloop(
        ['run', 'Announce'],
        { ...env, TEMPORAL_ADDRESS: undefined, WAVELOOP_DATA_DIR: dataDir },
        { cwd: broken.dir },
      );
      expect(out.code).toBe(2);
      expect(out.stderr.trim().split('\n')).toEqual([
        `waveloop.config.ts: agent "herald" names the tool "whisper", which is not offered (tools: task_complete, ask_question, converse, shout)`,
      ]);
      expect(fs.readdirSync(dataDir)).toEqual([]);

      broken.write('waveloop.config.ts', 'export default {\n');
      const syntax = await waveloop(['worker'], env, { cwd: broken.dir });
      expect(syntax.code).toBe(2);
      expect(syntax.stderr).toMatch(/^waveloop\.config\.ts: could not be loaded: /);
      expect(syntax.stderr).not.toContain('Worker polling');
    } finally {
      broken.remove();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('waveloop init writes a starter config, says what to run next, and never overwrites one', async () => {
    const fresh = testProject();
    try {
      const init = await waveloop(['init'], env, { cwd: fresh.dir });
      expect(init.code).toBe(0);
      expect(init.stdout).toContain('npx waveloop run --agent orders "What is the status of order A-1001?"');
      const written = fs.readFileSync(path.join(fresh.dir, 'waveloop.config.ts'), 'utf8');

      cli.fake.script({ toolCalls: [{ name: 'get_order', args: { id: 'A-1001' } }] }, { content: 'Shipped.' });
      const run = await waveloop(['run', '--agent', 'orders', 'What is the status of order A-1001?'], env, {
        cwd: fresh.dir,
        process: true,
      });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(
        'wave 1 · get_order(id=A-1001) → {"id":"A-1001","customer":"Initech","status":"shipped"}',
      );

      const again = await waveloop(['init'], env, { cwd: fresh.dir });
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('waveloop.config.ts exists already; nothing was written.');
      expect(fs.readFileSync(path.join(fresh.dir, 'waveloop.config.ts'), 'utf8')).toBe(written);
    } finally {
      fresh.remove();
    }
  });
});
