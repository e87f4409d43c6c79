import * as path from 'node:path';
import { Registry } from '../activities/registry';
import type { AgentDefinition } from '../agents/define';
import { DEFAULT_EFFECT, type ToolEffect } from '../contract/effects/effect';
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
  /** What a call does to the world: the config's `effects`, else the tool's own (an MCP server's annotations), else `write`. */
  effect: ToolEffect;
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
 * now), each with the effect the config's `effects` gives it. Agents: `default` (unless the project
 * has its own), the demo's with the demo, the project's. Throws a `ConfigFileError` when an MCP
 * server cannot be reached, or an agent or `effects` names a tool that no server offers; nothing
 * stays open then.
 */
export async function openToolset(
  project: LoadedProject,
  deps: { dataDir: string; now?: () => Date },
): Promise<Toolset> {
  const { config } = project;
  const listing: ToolListing[] = [];
  const offer = (source: ToolSource | ((tool: AnyTool) => ToolSource), tools: AnyTool[]) =>
    tools.map((offered) => {
      const tool = withEffect(offered, config.effects[offered.name]);
      listing.push({
        name: tool.name,
        source: typeof source === 'function' ? source(tool) : source,
        description: tool.description,
        requiresApproval: typeof tool.requiresApproval === 'function' ? 'rule' : (tool.requiresApproval ?? false),
        effect: tool.effect ?? DEFAULT_EFFECT,
      });
      return tool;
    });

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
    const unknown = Object.keys(config.effects).filter((name) => !tools.some((tool) => tool.name === name));
    if (unknown.length > 0)
      throw inFile(
        project,
        `effects names ${unknown.map((name) => `"${name}"`).join(', ')}, which no tool or MCP server offers (tools: ${tools.map((tool) => tool.name).join(', ')})`,
      );
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

/** `tool` with the effect the config gives it, when it gives one. */
function withEffect(tool: AnyTool, effect: ToolEffect | undefined): AnyTool {
  return effect === undefined ? tool : { ...tool, effect };
}

function inFile(project: LoadedProject, err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  return project.file ? new ConfigFileError(project.file, message) : new Error(message);
}
