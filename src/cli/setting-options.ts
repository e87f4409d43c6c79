import { Option } from 'commander';
import {
  flagOf,
  settingNamesOf,
  SETTINGS,
  type Layer,
  type SettingDeclaration,
  type SettingName,
  type SettingType,
} from '../contract/settings/declarations';
import { commaList } from './support';

/**
 * The flags of a layer's settings that the CLI offers (`flag: true` in the declarations), each named
 * after its setting (`maxParallelTools` → `--max-parallel-tools <n>`), with the setting's doc and
 * default (a tree's, for `tree`) as its help. The contract's schema checks the values.
 */
export function settingOptions(layer: Layer): Option[] {
  return flaggedSettings(layer).map((name) => {
    const declared: SettingDeclaration = SETTINGS[name];
    const { type, doc } = declared;
    const value = layer === 'tree' ? declared.treeDefault : declared.default;
    const fallback = value === undefined ? '' : ` (default ${JSON.stringify(value)})`;
    const help = `${doc.replace(/\.$/, '')}${fallback}`;
    const option = new Option(`${flagOf(name)}${argumentOf(type)}`, help);
    if (type.kind === 'enum') return option.choices(type.values);
    if (type.kind === 'int' || type.kind === 'number') return option.argParser(Number);
    if (type.kind === 'names' || type.kind === 'webhooks') return option.argParser(commaList);
    return option;
  });
}

/** The settings the parsed `options` give, by their setting names (undefined where not given). */
export function settingFields(layer: Layer, options: object): Partial<Record<SettingName, unknown>> {
  const given = options as Record<string, unknown>;
  return Object.fromEntries(flaggedSettings(layer).map((name) => [name, given[name]]));
}

function flaggedSettings(layer: Layer): SettingName[] {
  return settingNamesOf(layer).filter((name) => 'flag' in SETTINGS[name] && SETTINGS[name].flag);
}

function argumentOf(type: SettingType): string {
  switch (type.kind) {
    case 'boolean':
      return '';
    case 'int':
      return ' <n>';
    case 'number':
      return ' <number>';
    case 'names':
      return ' <a,b>';
    case 'webhooks':
      return ' <url,…>';
    default:
      return ' <value>';
  }
}
