import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { DEFAULT_TOOL_TIMEOUT_SECONDS } from '../contract/activity-options';
import { ToolError, type AnyTool } from '../tools/define';
import type { McpServerConfig } from './server-config';
import type { McpServerConnection } from './server-connection';
import { isDestructive, mcpToolEffect } from './tool-effect';
import { mcpToolName } from './tool-names';
import { mcpResultText, NO_CONTENT } from './tool-result';

/** The arguments of an MCP tool, as waveloop checks them: any JSON object (the server validates the rest). */
const mcpArguments = z.looseObject({});

/**
 * Whether calls of the server's tool `tool` wait for a person's approval: when the config's
 * `toolsToApprove` names it (or is `'*'`), and when the server marks it destructive
 * (`destructiveTools`, default `'approve'`: see `isDestructive`).
 */
export function mcpToolRequiresApproval(config: McpServerConfig, tool: Tool): boolean {
  if (config.toolsToApprove === '*' || (config.toolsToApprove ?? []).includes(tool.name)) return true;
  return isDestructive(tool) && (config.destructiveTools ?? 'approve') === 'approve';
}

/**
 * A waveloop tool that calls `tool` on the server behind `connection`: named `<server>__<tool>`,
 * described by the server, with the server's `inputSchema` as the JSON Schema the model sees,
 * its effect from the server's annotations (`mcpToolEffect`), the config's approval rule (and the
 * server's destructive tools' approval) and time limit (default 60 s a call). Each call is one activity;
 * what the server returns reaches the model as text (`mcpResultText`), and a result flagged
 * `isError` as a `ToolError` with that text (the model reads `Error: <text>`).
 */
export function mcpTool(connection: McpServerConnection, tool: Tool): AnyTool {
  const { server, config } = connection;
  const timeoutSeconds = config.timeoutSeconds ?? DEFAULT_TOOL_TIMEOUT_SECONDS;
  return {
    name: mcpToolName(server, tool.name),
    description: tool.description?.trim() || `Tool ${tool.name} of MCP server ${server}`,
    parameters: mcpArguments,
    inputSchema: tool.inputSchema,
    timeoutSeconds,
    requiresApproval: mcpToolRequiresApproval(config, tool),
    effect: mcpToolEffect(tool),
    // A call crosses to another process, of unknown speed: an activity, also when it only reads.
    localActivity: false,
    async execute(args, context) {
      const result = await connection.callTool(tool.name, args, {
        signal: context.signal,
        timeoutMs: timeoutSeconds * 1000,
      });
      const text = mcpResultText(result);
      if (result.isError)
        throw new ToolError(
          text === NO_CONTENT ? `${tool.name} of MCP server ${server} failed without saying why.` : text,
        );
      return text;
    },
  };
}
