export { WaveloopClient, type RunStatusReport, type RunSummary, type StartOptions } from './api';
export { connectClient, connectionSettings } from './connection';
export * from '../common/contract';
export { loadConfig, type WaveloopConfig } from '../common/config';
export { FailureType } from '../common/errors';
export { defineTool, ToolError, type ToolDefinition, type ToolContext } from '../tools/define';
export { defineAgent, type AgentDefinition } from '../agents/define';
