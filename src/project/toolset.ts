import * as path from 'node:path';
import { Registry } from '../activities/registry';
import type { AgentDefinition } from '../agents/define';
import type { ApprovalRequirement } from '../contract/people/approvals';
import { createDemoTools, openDemoDatabase } from '../demo';
import { McpConnections } from '../mcp';
import { builtinTools, type AnyTool } from '../tools';
import { ConfigFileError } from './config-file-error';
import type { LoadedProject } from './load-project';
import { projectAgents } from './project-agents';

/** Where a tool a worker offers comes from. */
export type ToolSource = 'built-in' | 'config' | 'demo' | `mcp:${string}`;

/** One tool as `waveloop tools` lists it. */
export interface ToolListing {
  name: string;
  source: ToolSource;
  description: string;
  /** `rule`: a function of the call's arguments decides; an object: every call waits, for whom it says. */
  requiresApproval: boolean | 'rule' | ApprovalRequirement;
}

/** The tools and agents of a project, ready for a worker, and what to close when the worker is done. */
export interface Toolset {
  tools: AnyTool[];
  agents: AgentDefinition[];
  listing: ToolListing[];
  /** Closes the MCP connections (stopping stdio servers) and the demo database. */
  close(): Promise<void>;
}

/**
 * Opens what a project's worker offers: the loop's own tools, the project's tools, the demo toolkit
 * (its database in `dataDir`) when the project wants it, and the tools of its MCP servers (connected
 * now). Agents: `default` (unless the project has its own), the demo's with the demo, the project's.
 * Throws a `ConfigFileError` when an MCP server cannot be reached or an agent names a tool that no
 * server offers; nothing stays open then.
 */
export async function openToolset(
  project: LoadedProject,
  deps: { dataDir: string; now?: () => Date },
): Promise<Toolset> {
  const { config } = project;
  const listing: ToolListing[] = [];
  const offer = (source: ToolSource | ((tool: AnyTool) => ToolSource), tools: AnyTool[]) => {
    for (const tool of tools) {
      const from = typeof source === 'function' ? source(tool) : source;
      listing.push({
        name: tool.name,
        source: from,
        description: tool.description,
        requiresApproval: typeof tool.requiresApproval === 'function' ? 'rule' : (tool.requiresApproval ?? false),
      });
    }
    return tools;
  };

  const db = config.demo ? openDemoDatabase(path.join(deps.dataDir, 'demo.db')) : undefined;
  let mcp: McpConnections | undefined;
  const close = async () => {
    await mcp?.close();
    db?.close();
  };
  try {
    mcp = await McpConnections.connect(config.mcpServers).catch((err: unknown) => {
      throw inFile(project, err);
    });
    const serverOf = new Map(mcp.describe().map((entry) => [entry.name, entry.server]));
    const tools = [
      ...offer('config', config.tools as AnyTool[]),
      ...(db ? offer('demo', createDemoTools({ db, now: deps.now ?? (() => new Date()) })) : []),
      ...offer((tool) => `mcp:${serverOf.get(tool.name)}`, mcp.tools()),
      ...offer('built-in', builtinTools()),
    ];
    const agents = projectAgents(config);
    try {
      new Registry(tools, agents);
    } catch (err) {
      throw inFile(project, err);
    }
    return { tools, agents, listing, close };
  } catch (err) {
    await close();
    throw err;
  }
}

function inFile(project: LoadedProject, err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  return project.file ? new ConfigFileError(project.file, message) : new Error(message);
}
