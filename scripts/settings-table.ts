/**
 * The settings table of docs/contract.md, made from the declarations (src/contract/settings):
 * `npm run docs:settings` writes it between the file's markers, and test/docs/contract.test.ts
 * fails when the file's table is not this one.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  envVarOf,
  flagOf,
  SETTING_NAMES,
  SETTINGS,
  type SettingDeclaration,
  type SettingType,
} from '../src/contract/settings/declarations';

export const TABLE_START = '<!-- settings table: npm run docs:settings -->';
export const TABLE_END = '<!-- end of the settings table -->';
export const CONTRACT_DOC = path.join(__dirname, '..', 'docs', 'contract.md');

/** The Markdown table of every setting: its name, value, default, the layers that take it, its flag and variable, its doc. */
export function settingsTable(): string {
  const rows = SETTING_NAMES.map((name) => {
    const declared: SettingDeclaration = SETTINGS[name];
    const layers = declared.layers.filter((layer) => layer !== 'worker');
    const worker = declared.layers.includes('worker') ? `\`${envVarOf(name)}\`` : '–';
    const flag = declared.flag ? `\`${flagOf(name)}\`` : '–';
    return `| \`${name}\` | ${valueOf(declared.type)} | ${defaultOf(declared)} | ${layers.join(', ') || '–'} | ${worker} | ${flag} | ${declared.doc} |`;
  });
  return [
    '| setting | value | default | run, agent, tree, tool | worker (variable) | CLI flag | what it does |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

function valueOf(type: SettingType): string {
  switch (type.kind) {
    case 'int':
      return `whole number, ${type.min.toLocaleString('en-US')}–${type.max.toLocaleString('en-US')}`;
    case 'number':
      return `number, ${type.exclusiveMin ? '> ' : ''}${type.min}–${type.max.toLocaleString('en-US')}`;
    case 'boolean':
      return 'true or false';
    case 'enum':
      return type.values.map((v) => `\`${v}\``).join(' or ');
    case 'string':
      return 'text';
    case 'names':
      return type.values ? `list of ${type.values.map((v) => `\`${v}\``).join(', ')}` : 'tool names';
    case 'webhooks':
      return 'URLs';
    case 'fairnessKey':
      return 'text, ≤ 64 bytes';
  }
}

function defaultOf(declared: SettingDeclaration): string {
  const show = (value: unknown) => (typeof value === 'string' ? `\`${value}\`` : String(value));
  const run = declared.default === undefined ? undefined : show(declared.default);
  const tree = declared.treeDefault === undefined ? undefined : `${show(declared.treeDefault)} (tree)`;
  return [run, tree].filter(Boolean).join(', ') || 'none';
}

/** `docs/contract.md` with its settings table replaced by `settingsTable()`. */
export function withSettingsTable(text: string): string {
  const start = text.indexOf(TABLE_START);
  const end = text.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`docs/contract.md has no "${TABLE_START}" … "${TABLE_END}" markers`);
  return `${text.slice(0, start + TABLE_START.length)}\n\n${settingsTable()}\n\n${text.slice(end)}`;
}

if (process.argv[1]?.endsWith('settings-table.ts')) {
  fs.writeFileSync(CONTRACT_DOC, withSettingsTable(fs.readFileSync(CONTRACT_DOC, 'utf8')));
  console.log(`Wrote the settings table of ${path.relative(process.cwd(), CONTRACT_DOC)}.`);
}
