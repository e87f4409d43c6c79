import { describe, expect, it } from 'vitest';
import { AgentDefinitionSchema } from '../../../src/agents/define';
import { buildProgram } from '../../../src/cli/program';
import { AgentLoopInputSchema } from '../../../src/contract/agent-loop';
import { GoalTreeInputSchema } from '../../../src/contract/goal-tree/pursue-goal';
import {
  envVarOf,
  flagOf,
  SETTING_NAMES,
  settingNamesOf,
  SETTINGS,
  type SettingName,
} from '../../../src/contract/settings/declarations';
import { RENAMED_AGENT_FIELDS, RENAMED_RUN_FIELDS, RENAMED_TREE_FIELDS } from '../../../src/contract/settings/renamed';
import { loadSettings } from '../../../src/settings';

/**
 * Every layer takes its settings from their one declaration (src/contract/settings/declarations.ts):
 * a field added to a layer by hand, or a setting declared for a layer that does not take it, fails here.
 */
const sorted = (names: Iterable<string>) => [...names].sort();
const minus = (keys: string[], ...drop: Array<Iterable<string>>) => {
  const dropped = new Set(drop.flatMap((d) => [...d]));
  return keys.filter((key) => !dropped.has(key));
};

/** The fields of each layer that are not settings: what the run, the agent or the tree is. */
const RUN_TASK = ['goal', 'agent', 'system', 'tools', 'output', 'fork', 'startedBy', 'chain'];
const AGENT_OWN = ['name', 'system', 'tools', 'requiresApproval', 'output', 'description'];
const TREE_TASK = ['goal', 'agent', 'tools', 'output', 'startedBy'];

describe('settings: every layer is made from the declarations', () => {
  it("a run's input holds its task, every run setting and the refused old names, nothing else", () => {
    const keys = Object.keys(AgentLoopInputSchema.shape);
    expect(sorted(minus(keys, RUN_TASK, Object.keys(RENAMED_RUN_FIELDS)))).toEqual(sorted(settingNamesOf('run')));
  });

  it('an agent holds its own fields, every agent setting and the refused old names, nothing else', () => {
    const keys = Object.keys(AgentDefinitionSchema.shape);
    expect(sorted(minus(keys, AGENT_OWN, Object.keys(RENAMED_AGENT_FIELDS)))).toEqual(sorted(settingNamesOf('agent')));
  });

  it("a goal tree's input holds its task, every tree setting and the refused old names, nothing else", () => {
    const keys = Object.keys(GoalTreeInputSchema.shape);
    expect(sorted(minus(keys, TREE_TASK, Object.keys(RENAMED_TREE_FIELDS)))).toEqual(sorted(settingNamesOf('tree')));
  });

  it("the worker reads every worker setting from its variable, WAVELOOP_ + the setting's name", () => {
    const sample: Record<string, string> = {
      int: '4',
      number: '60',
      string: 'llama3.1',
      boolean: 'true',
      webhooks: 'https://ops.example.com/hook',
      names: 'a,b',
    };
    for (const name of settingNamesOf('worker')) {
      const variable = envVarOf(name);
      const value = sample[SETTINGS[name].type.kind];
      expect(value, `a sample value for ${name}`).toBeDefined();
      expect(loadSettings({ [variable]: value }).defaults, variable).toHaveProperty(name);
    }
  });

  it('`waveloop run` offers a flag for each flagged run setting, named after it', () => {
    const run = buildProgram().commands.find((command) => command.name() === 'run')!;
    const flags = run.options.map((option) => option.long);
    const flagged = settingNamesOf('run').filter((name) => 'flag' in SETTINGS[name]);
    for (const name of flagged) expect(flags, name).toContain(flagOf(name));
  });

  it('every setting names at least one layer, and has a one-line doc', () => {
    for (const name of SETTING_NAMES as SettingName[]) {
      expect(SETTINGS[name].layers.length, name).toBeGreaterThan(0);
      expect(SETTINGS[name].doc, name).toMatch(/^[^\n]+\.$/);
    }
  });
});
