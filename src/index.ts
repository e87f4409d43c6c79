/**
 * waveloop's library: declare tools, agents and a project's config; run workers; start, follow
 * and answer runs from code. `import { defineConfig, defineTool } from 'waveloop'`.
 */
export { defineTool, ToolError, type ToolContext, type ToolDefinition, type ToolRetry } from './tools/define';
export { defineAgent, type AgentDefinition } from './agents/define';
export { defineConfig, type ProjectConfig } from './project/define-config';
export type { McpHttpServerConfig, McpServerConfig, McpServers, McpStdioServerConfig } from './mcp/server-config';
export {
  createModelClient,
  createWorker,
  DEFAULT_WORKER_TUNING,
  ENCODED_FAILURES_PATH,
  throughputTuning,
  type WaveloopWorkerOptions,
  type WorkerDeployment,
  type WorkerTuning,
} from './worker';
export { prometheusTelemetry, telemetryWorkflowModules, type OtlpProtocol, type TracingOptions } from './telemetry';
export * from './client';
