import * as path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(__dirname, '..', '..');

/**
 * The project's lint config with only `no-restricted-imports` on, which needs no type information:
 * the files are parsed without building the TypeScript program the type-aware rules need.
 */
const eslint = new ESLint({
  cwd: ROOT,
  ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
  overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
});

/** The `no-restricted-imports` messages lint gives `source` as the content of `file`, a module of src. */
async function refusals(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path.join(ROOT, file) });
  return result.messages
    .filter((message) => message.ruleId === 'no-restricted-imports')
    .map((message) => message.message);
}

describe('lint: the layers of src', () => {
  it('refuses an import of the CLI from the library client', async () => {
    const messages = await refusals(
      'src/client/runs.ts',
      "import { colors } from '../cli/ui/colors';\nexport const red = colors.red;\n",
    );
    expect(messages).toEqual([
      expect.stringContaining('src/client may import only src/contract, src/settings, src/payloads, src/temporal'),
    ]);
  });

  it('refuses an import of the client or the CLI from the worker', async () => {
    const source =
      "import { WaveloopClient } from '../client/waveloop-client';\nimport { print } from '../cli/support';\nexport { WaveloopClient, print };\n";
    const messages = await refusals('src/worker/create-worker.ts', source);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(/^'..\/client\/waveloop-client' import is restricted .* src\/worker may import only /);
  });

  it('lets the HTTP API use the library client, and refuses it the worker and the CLI', async () => {
    const client = "import { WaveloopClient } from '../client/waveloop-client';\nexport { WaveloopClient };\n";
    expect(await refusals('src/http/app.ts', client)).toEqual([]);
    const source =
      "import { createWorker } from '../worker';\nimport { print } from '../cli/support';\nexport { createWorker, print };\n";
    const messages = await refusals('src/http/app.ts', source);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toContain(
      'src/http may import only src/contract, src/settings, src/client, src/temporal, src/payloads',
    );
  });

  it('refuses an import of the CLI from anywhere but the CLI, deeper folders too', async () => {
    expect(
      await refusals(
        'src/workflows/goal-tree/start.ts',
        "import { print } from '../../cli/support';\nexport { print };\n",
      ),
    ).toHaveLength(1);
    expect(
      await refusals(
        'src/cli/commands/goal.ts',
        "import { print } from '../support';\nimport { WaveloopClient } from '../../client/waveloop-client';\nexport { print, WaveloopClient };\n",
      ),
    ).toEqual([]);
  });

  it('lets workflows import activity types only, and the contract', async () => {
    const types =
      "import type * as activities from '../activities';\nimport { AGENT_LOOP_WORKFLOW } from '../contract/agent-loop';\nexport type A = typeof activities;\nexport { AGENT_LOOP_WORKFLOW };\n";
    expect(await refusals('src/workflows/agent-loop.ts', types)).toEqual([]);
    const values = "import { createActivities } from '../activities';\nexport { createActivities };\n";
    expect(await refusals('src/workflows/wave.ts', values)).toEqual([
      expect.stringMatching(/^'..\/activities' import is restricted .* Workflows import activity types only\.$/),
    ]);
  });
});
