import {
  settingNamesOf,
  SETTINGS,
  type LayerSettings,
  type SettingName,
  type SettingsOf,
  type SettingValue,
} from './declarations';

type Declared = (typeof SETTINGS)[SettingName];

/** Setting `K` once resolved: always set when it has a default, else possibly unset. */
export type Resolved<K extends SettingName, D extends 'default' | 'treeDefault' = 'default'> =
  (typeof SETTINGS)[K] extends Record<D, unknown> ? SettingValue<K> : SettingValue<K> | undefined;

/** A run's settings, resolved: every setting a run, its agent or its worker may give. */
export type RunSettings = { [K in SettingsOf<'run'> | SettingsOf<'agent'> | SettingsOf<'worker'>]: Resolved<K> };

/** The settings a worker gives its runs, below a run's and its agent's (`createWorker({ defaults })`, the environment). */
export type WorkerDefaults = LayerSettings<'worker'>;

/** A tool's settings in a run, resolved. */
export type ToolSettings = { [K in SettingsOf<'tool'>]: Resolved<K> };

/** A goal tree's settings, resolved. */
export type TreeSettings = { [K in SettingsOf<'tree'>]: Resolved<K, 'treeDefault'> };

type Given = Readonly<Partial<Record<SettingName, unknown>>> | undefined;

/**
 * Which value of each setting wins: the first layer that gives it, in the order given (a run's
 * input, then its agent, then the worker), else the setting's default. A `union` setting (webhooks,
 * tools to approve) joins every layer's list instead, each item once. The one place that says so.
 */
export function resolveRunSettings(layers: { run?: Given; agent?: Given; worker?: Given }): RunSettings {
  const names = [...new Set<SettingName>([...runNames, ...settingNamesOf('worker')])];
  return resolve(names, [layers.run, layers.agent, layers.worker], 'default') as RunSettings;
}

/** How a tool's calls wait for approval in a run: the run's, else its agent's, else the tool's own, else the default. */
export function resolveToolSettings(layers: { run?: Given; agent?: Given; tool?: Given }): ToolSettings {
  return resolve(settingNamesOf('tool'), [layers.run, layers.agent, layers.tool], 'default') as ToolSettings;
}

/** A goal tree's settings: the tree's input, then the worker's, then the tree's defaults. */
export function resolveTreeSettings(layers: { tree?: Given; worker?: Given }): TreeSettings {
  return resolve(settingNamesOf('tree'), [layers.tree, layers.worker], 'treeDefault') as TreeSettings;
}

const runNames = [...settingNamesOf('run'), ...settingNamesOf('agent')];

function resolve(
  names: readonly SettingName[],
  layers: readonly Given[],
  defaults: 'default' | 'treeDefault',
): Record<string, unknown> {
  const resolved: Record<string, unknown> = {};
  for (const name of names) {
    const declared: Declared = SETTINGS[name];
    const given = layers.map((layer) => layer?.[name]).filter((value) => value !== undefined);
    const fallback = (declared as Partial<Record<'default' | 'treeDefault', unknown>>)[defaults];
    const value =
      'merge' in declared && declared.merge === 'union' ? union(given as unknown[][]) : (given[0] ?? fallback);
    if (value !== undefined) resolved[name] = value;
  }
  return resolved;
}

function union(lists: readonly unknown[][]): unknown[] | undefined {
  const items = [...new Set(lists.flat())];
  return items.length ? items : undefined;
}
