import * as fs from 'node:fs';
import type { Command } from 'commander';
import { approversLabel } from '../../contract/people/approvals';
import type { LoadedProject } from '../../project/load-project';
import { STARTER_AGENT, STARTER_CONFIG, STARTER_CONFIG_FILE, STARTER_GOAL } from '../../project/starter';
import type { ToolListing } from '../../project/toolset';
import { resolvePath } from '../io';
import { action, note, print, projectOf, settings } from '../support';
import { alignColumns } from '../ui/table';

/**
 * The commands about a project rather than its runs: `waveloop init` writes a starter config, and
 * `waveloop tools` lists what a worker of the project would offer.
 */

/** Adds `waveloop init` and `waveloop tools`. */
export function register(program: Command): void {
  program
    .command('init')
    .description('write a starter waveloop.config.ts here: one tool, one agent')
    .action(action(() => initCommand()));
  program
    .command('tools')
    .description(
      'list the tools a worker offers: name, source (config, demo, MCP server), effect, approval, description',
    )
    .option('--json', 'print JSON')
    .action(action(async (options: { json?: boolean }) => toolsCommand(await projectOf(program), options)));
}

/** `waveloop init`: writes `waveloop.config.ts` here (never over an existing one) and says what to run next. */
async function initCommand(): Promise<number> {
  const file = resolvePath(STARTER_CONFIG_FILE);
  if (fs.existsSync(file)) {
    note(`${STARTER_CONFIG_FILE} exists already; nothing was written.`);
    return 1;
  }
  fs.writeFileSync(file, STARTER_CONFIG);
  print(`Wrote ${STARTER_CONFIG_FILE}: one tool (get_order) and one agent (${STARTER_AGENT}). Next:`);
  print(`  npx waveloop run --agent ${STARTER_AGENT} "${STARTER_GOAL}"`);
  print('`npx waveloop tools` lists the tools a worker offers.');
  return 0;
}

/** `waveloop tools`: the tools a worker of this project offers (connecting to its MCP servers to ask them). */
async function toolsCommand(project: LoadedProject, options: { json?: boolean }): Promise<number> {
  // The toolset connects to MCP servers: loaded only by the command that lists tools.
  const { openToolset } = await import('../../project/toolset');
  const toolset = await openToolset(project, { dataDir: settings().dataDir });
  try {
    if (options.json) print(JSON.stringify(toolset.listing, null, 2));
    else for (const line of toolTable(toolset.listing)) print(line);
  } finally {
    await toolset.close();
  }
  return 0;
}

/** The listing as aligned columns: name, source, effect, approval, and the description's first line. */
export function toolTable(listing: readonly ToolListing[]): string[] {
  return alignColumns([
    ['NAME', 'SOURCE', 'EFFECT', 'APPROVAL', 'DESCRIPTION'],
    ...listing.map((tool) => [
      tool.name,
      tool.source,
      tool.effect,
      approvalColumn(tool.requiresApproval),
      shorten(tool.description),
    ]),
  ]);
}

/** `by rule`, `required`, `finance ×2, four eyes` or `-`. */
function approvalColumn(rule: ToolListing['requiresApproval']): string {
  if (rule === 'rule') return 'by rule';
  if (typeof rule !== 'object') return rule ? 'required' : '-';
  const who = rule.approvers ? approversLabel(rule.approvers) : 'required';
  return [
    `${who}${rule.quorum && rule.quorum > 1 ? ` ×${rule.quorum}` : ''}`,
    ...(rule.fourEyes ? ['four eyes'] : []),
  ].join(', ');
}

function shorten(description: string): string {
  const line = description.split('\n')[0]!.trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
