import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigFileError } from '../../src/project/config-file-error';
import { findConfigFile, loadProject } from '../../src/project/load-project';
import { testProject, type TestProject } from '../support/project';

const CONFIG = `import { defineConfig, defineTool, defineAgent } from 'waveloop';
import { z } from 'zod';

const echo = defineTool({
  name: 'echo',
  description: 'Says the text back.',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }: { text: string }) => text,
});

export default defineConfig({ tools: [echo], agents: [defineAgent({ name: 'parrot', system: 'Repeat.', tools: ['echo'] })] });
`;

describe('loadProject', () => {
  let project: TestProject;
  afterEach(() => project?.remove());

  it('loads waveloop.config.ts without a build step, found from a directory below it; its tools work', async () => {
    project = testProject({ 'waveloop.config.ts': CONFIG, 'src/jobs/.keep': '' });
    const loaded = await loadProject({ cwd: path.join(project.dir, 'src', 'jobs') });
    expect(loaded.file).toBe(path.join(project.dir, 'waveloop.config.ts'));
    expect(loaded.config.demo).toBe(false);
    expect(loaded.config.agents.map((a) => a.name)).toEqual(['parrot']);
    const [echo] = loaded.config.tools;
    expect(await echo!.execute(echo!.parameters.parse({ text: 'hi' }), {} as never)).toBe('hi');
  });

  it('loads an ES module config (.mjs), and --config names a file anywhere', async () => {
    project = testProject({
      'conf/team.mjs': `import { defineConfig } from 'waveloop';\nexport default defineConfig({ demo: true });\n`,
    });
    const loaded = await loadProject({ cwd: project.dir, file: 'conf/team.mjs' });
    expect(loaded.config.demo).toBe(true);
  });

  it('without a config file, a worker offers the demo toolkit', async () => {
    project = testProject();
    expect(findConfigFile(project.dir)).toBeUndefined();
    expect(await loadProject({ cwd: project.dir })).toEqual({
      file: undefined,
      config: { tools: [], agents: [], mcpServers: {}, scorers: [], demo: true, people: [], effects: {} },
    });
  });

  it('a syntax error, a missing file, or an invalid config: one message naming the file and the problem', async () => {
    project = testProject({ 'waveloop.config.ts': 'export default defineConfig({ tools: [ }\n' });
    const broken = await loadProject({ cwd: project.dir }).catch((err: unknown) => err);
    expect(broken).toBeInstanceOf(ConfigFileError);
    expect((broken as Error).message).toMatch(/waveloop\.config\.ts: could not be loaded: /);

    const missing = await loadProject({ cwd: project.dir, file: 'nope.ts' }).catch((err: unknown) => err);
    expect((missing as Error).message).toMatch(/nope\.ts: no such file$/);

    project.write('waveloop.config.ts', CONFIG.replace("tools: ['echo']", "tools: ['echo', 'shout']"));
    const invalid = await loadProject({ cwd: project.dir }).catch((err: unknown) => err);
    expect((invalid as Error).message).toMatch(
      /waveloop\.config\.ts: agent "parrot" names the tool "shout", which is not offered/,
    );
  });

  it('the billing example of the README loads as it is: its tool, its MCP server, its agent', async () => {
    const loaded = await loadProject({
      file: path.join(__dirname, '..', '..', 'examples', 'billing', 'waveloop.config.ts'),
    });
    expect(loaded.config.tools.map((tool) => tool.name)).toEqual(['get_invoice']);
    expect(Object.keys(loaded.config.mcpServers)).toEqual(['documents']);
    expect(loaded.config.agents).toMatchObject([
      { name: 'billing', tools: ['get_invoice', 'documents__list_directory', 'documents__read_text_file'] },
    ]);
  });
});
