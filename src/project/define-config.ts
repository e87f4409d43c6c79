import type { AgentDefinition } from '../agents/define';
import type { ToolEffect } from '../contract/effects/effect';
import type { ScorerDefinition } from '../contract/eval/scorer';
import type { McpServers } from '../mcp/server-config';
import type { ToolDefinition } from '../tools/define';

/**
 * What a project's `waveloop.config.ts` exports: the tools and agents its workers offer, the MCP
 * servers whose tools they offer too, and whether the demo toolkit comes along.
 */
export interface ProjectConfig {
  /** Your tools (`defineTool`). The loop's own `task_complete`, `ask_question` and `converse` are always there. */
  tools?: ToolDefinition<any, any>[];
  /** Your agents (`defineAgent`). An agent named `default` replaces the one a run gets when it names none. */
  agents?: AgentDefinition[];
  /**
   * MCP servers by name: `{ command, args?, env?, cwd? }` (stdio) or `{ url, headers? }` (Streamable
   * HTTP), each with `tools?`, `toolsToApprove?` and `timeoutSeconds?`. Their tools are offered as
   * `<server>__<tool>`.
   */
  mcpServers?: McpServers;
  /** Your eval scorers (`defineScorer`): `waveloop eval` runs each on every case, besides the built-in ones. */
  scorers?: ScorerDefinition[];
  /**
   * The people who decide in `waveloop serve`, and whose groups approval rules name: each a `name`,
   * `groups` and the SHA-256 of their token (`waveloop token` makes one), never the token itself
   * (docs/security.md).
   */
  people?: Array<{ name: string; groups?: string[]; tokenSha256: string }>;
  /**
   * Tools' effects by tool name (`read`, `idempotent`, `write`), over what each tool says: its
   * `defineTool({ effect })`, an MCP server's annotations (`{ files__write_file: 'write' }`).
   * An unknown effect, or a tool nobody offers, is refused when the config loads (docs/effects.md).
   */
  effects?: Record<string, ToolEffect>;
  /** Also offer the demo toolkit and the `back-office` agent (default: only without a config file). */
  demo?: boolean;
}

/** Declares a project's configuration; gives `waveloop.config.ts` its types and returns it as it is. */
export function defineConfig(config: ProjectConfig): ProjectConfig {
  return config;
}
