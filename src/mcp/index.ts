export { McpConnections } from './connections';
export type { McpConnectOptions, McpToolListing } from './connections';
export { mcpServerConfigSchema, mcpServerNameProblem, mcpServersSchema } from './server-config';
export type { McpHttpServerConfig, McpServerConfig, McpServers, McpStdioServerConfig } from './server-config';
export { isDestructive, mcpToolEffect } from './tool-effect';
export { MAX_TOOL_NAME_LENGTH, mcpToolName } from './tool-names';
export { mcpResultText } from './tool-result';
