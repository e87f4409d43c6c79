/**
 * The workflow type of an agent run, for code that starts one by name. No zod and no I/O here:
 * workflow code imports it (src/contract/agent-loop.ts, which validates, re-exports it).
 */
export const AGENT_LOOP_WORKFLOW = 'agentLoop';
