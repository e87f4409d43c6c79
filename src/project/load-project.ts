import * as fs from 'node:fs';
import * as path from 'node:path';
import { createJiti } from 'jiti';
import { demoAgents } from '../demo/agents';
import { DEMO_TOOL_NAMES } from '../demo/tool-names';
import { builtinTools } from '../tools';
import { ConfigFileError } from './config-file-error';
import { validateProjectConfig, type ReservedNames, type ValidProjectConfig } from './validate-config';

/** The names a config file may have, in the order they are looked for in each directory. */
export const CONFIG_FILE_NAMES = [
  'waveloop.config.ts',
  'waveloop.config.mts',
  'waveloop.config.cts',
  'waveloop.config.mjs',
  'waveloop.config.js',
  'waveloop.config.cjs',
];

/** A project's configuration and the file it came from (none: the demo toolkit). */
export interface LoadedProject {
  file: string | undefined;
  config: ValidProjectConfig;
}

/** The nearest config file in `from` or a directory above it, or undefined. */
export function findConfigFile(from: string = process.cwd()): string | undefined {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    const found = CONFIG_FILE_NAMES.map((name) => path.join(dir, name)).find((file) => fs.existsSync(file));
    if (found) return found;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * Loads the project's configuration: `file` when given, else the nearest config file from `cwd`
 * upwards, else the demo toolkit alone (`demo: true`). TypeScript and ES module configs load
 * without a build step (through jiti); `import … from 'waveloop'` in them is this waveloop, the
 * one loading them. Throws a `ConfigFileError` naming the file and the problem when the file is
 * missing, does not load, or is not valid.
 */
export async function loadProject(options: { file?: string; cwd?: string } = {}): Promise<LoadedProject> {
  const cwd = options.cwd ?? process.cwd();
  const file = options.file ? path.resolve(cwd, options.file) : findConfigFile(cwd);
  if (!file)
    return {
      file: undefined,
      config: { tools: [], agents: [], mcpServers: {}, scorers: [], demo: true, people: [], effects: {} },
    };
  if (!fs.existsSync(file)) throw new ConfigFileError(file, 'no such file', cwd);

  let exported: unknown;
  try {
    exported = await configLoader(await import(SELF)).import(file, { default: true });
  } catch (err) {
    throw new ConfigFileError(file, `could not be loaded: ${err instanceof Error ? err.message : String(err)}`, cwd);
  }
  const validated = validateProjectConfig(exported, RESERVED);
  if ('problem' in validated) throw new ConfigFileError(file, validated.problem, cwd);
  return { file, config: validated.config };
}

const RESERVED: ReservedNames = {
  builtinTools: builtinTools().map((tool) => tool.name),
  demoTools: DEMO_TOOL_NAMES,
  demoAgents: demoAgents.map((agent) => agent.name),
};

/** waveloop's own entry module: dist/src/index.js when built, src/index.ts in tests (no extension). */
const SELF = path.join(__dirname, '..', 'index');

/**
 * The loader of config files: each load evaluates the config file (and the modules of its own it
 * imports) afresh, while `waveloop` in it is `self`, the very module of the waveloop loading it
 * (one instance: its classes, such as `ToolError`, are the loader's own, and nothing is loaded twice).
 */
function configLoader(self: unknown) {
  return createJiti(__filename, { virtualModules: { waveloop: self }, moduleCache: false, interopDefault: true });
}
