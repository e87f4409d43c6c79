import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTRACT_DOC, withSettingsTable } from '../../scripts/settings-table';
import { AgentLoopInputSchema } from '../../src/contract/agent-loop';
import { GoalTreeInputSchema } from '../../src/contract/goal-tree/pursue-goal';
import { SETTING_NAMES } from '../../src/contract/settings/declarations';
import {
  RENAMED_AGENT_FIELDS,
  RENAMED_ENV_VARS,
  RENAMED_MCP_FIELDS,
  RENAMED_RETRY_FIELDS,
  RENAMED_RUN_FIELDS,
  RENAMED_TOOL_FIELDS,
  RENAMED_TREE_FIELDS,
  RENAMED_WORKER_OPTIONS,
} from '../../src/contract/settings/renamed';
import { ROOT } from '../support/cli';

/** README.md and every page of docs/, by their path from the repository's root. */
function pages(): Array<{ file: string; text: string }> {
  const docs = fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs].map((file) => ({ file, text: fs.readFileSync(path.join(ROOT, file), 'utf8') }));
}

/** The JSON objects of a page's ```json blocks that are a run's or a tree's input: they have a `goal` and no `status`. */
function inputSamples(text: string): Array<Record<string, unknown>> {
  return [...text.matchAll(/```json\n([\s\S]*?)```/g)].flatMap(([, block]) => {
    try {
      const value = JSON.parse(block) as unknown;
      const record = value as Record<string, unknown>;
      // A result has a status, a webhook's body an event.
      const input = typeof record.goal === 'string' && !('status' in record) && !('event' in record);
      return value && typeof value === 'object' && input ? [record] : [];
    } catch {
      return [];
    }
  });
}

describe('docs/contract.md and the contract in the docs', () => {
  it('the settings table is the one the declarations make (npm run docs:settings)', () => {
    const text = fs.readFileSync(CONTRACT_DOC, 'utf8');
    expect(text, 'run `npm run docs:settings`').toBe(withSettingsTable(text));
  });

  it("every run or tree input in the README and docs/ is one the contract takes, with today's names", () => {
    let samples = 0;
    for (const { file, text } of pages()) {
      for (const sample of inputSamples(text)) {
        samples++;
        const schema = file === 'docs/goal-trees.md' ? GoalTreeInputSchema : AgentLoopInputSchema;
        const parsed = schema.safeParse(sample);
        expect(
          parsed.success ? '' : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
          file,
        ).toBe('');
      }
    }
    expect(samples).toBeGreaterThan(0);
  });

  it('an old name appears only in the table of names that changed', () => {
    const old = Object.keys({
      ...RENAMED_RUN_FIELDS,
      ...RENAMED_TREE_FIELDS,
      ...RENAMED_AGENT_FIELDS,
      ...RENAMED_TOOL_FIELDS,
      ...RENAMED_RETRY_FIELDS,
      ...RENAMED_MCP_FIELDS,
      ...RENAMED_WORKER_OPTIONS,
      ...RENAMED_ENV_VARS,
    }).filter((name) => !(SETTING_NAMES as readonly string[]).includes(name)); // createWorker's became settings
    for (const { file, text } of pages()) {
      const kept = file === 'docs/contract.md' ? text.slice(0, text.indexOf('## Names that changed')) : text;
      for (const name of old) {
        const used = new RegExp(`(\`${name}\\b|"${name}"\\s*:|\\b${name}:\\s|\\b${name}=)`);
        expect(kept.match(used)?.[0], `${file} uses the old name ${name}`).toBeUndefined();
      }
    }
  });
});
