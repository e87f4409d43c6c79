/**
 * waveloop's library: declare a project's tools, agents and MCP servers; run workers; start,
 * follow and decide runs and goal trees from code. `import { defineConfig, defineTool } from 'waveloop'`.
 *
 * Every name here is listed in docs/api.md. What is not exported is internal and may change in any
 * release: activity inputs, prompts, the payload codecs' parts, the CLI, the embedded server, and the
 * HTTP API of `waveloop serve` (src/http: not exported, so that importing waveloop loads no HTTP server).
 */

// Declaring a project (waveloop.config.ts).
export { defineConfig, type ProjectConfig } from './project/define-config';
export { defineScorer, type ScoredRun, type ScorerDefinition } from './contract/eval/scorer';
export {
  defineTool,
  ToolError,
  type ApprovalContext,
  type ApprovalRule,
  type ToolContext,
  type ToolDefinition,
  type ToolRetry,
} from './tools/define';
export { defineAgent, type AgentDefinition, type AgentOutput } from './agents/define';
export { TOOL_EFFECTS, type ToolEffect } from './contract/effects/effect';
export type { McpHttpServerConfig, McpServerConfig, McpServers, McpStdioServerConfig } from './mcp/server-config';

// Running workers.
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

// The audit trail a worker writes (createWorker({ audit })).
export { openAuditStore } from './audit/open-store';
export type { AuditQuery, AuditStore } from './audit/store';
export type { AuditEntry, AuditKind, AuditRecord } from './contract/audit/records';

// Settings from the environment, and the connection to Temporal.
export { loadSettings, type WaveloopSettings, type WebhookSettings } from './settings';
export { connectClient, connectionSettings, type TemporalConnectionSettings } from './temporal/connection';

// The client: runs, goal trees, schedules.
export { WaveloopClient } from './client/waveloop-client';
export { LIVE_POLLER_WINDOW_MS } from './client/live-worker';
export { NoWorkerError } from './client/no-worker-error';
export type {
  DecisionOptions,
  QueryOptions,
  ResultOptions,
  RunsClient,
  RunStatusReport,
  RunSummary,
  StartOptions,
} from './client/runs';
export type { ModelCallState } from './client/model-call';
export type { ListedRun, ListOptions, RunPage } from './client/run-list';
export {
  RUN_ENDED,
  type Follower,
  type FollowOptions,
  type PendingApproval,
  type PendingQuestion,
  type RunEvent,
} from './client/follow';
export type { PersonUpdate } from './client/person-updates';
export type { PendingDecision, PendingList } from './client/pending';
export type { EffectEntry, EffectLedger } from './client/effects';
export { UndoRefusedError, type UndoOptions, type UndoReport } from './client/undo';
export type { UndoEntry, UndoneCall } from './contract/effects/undo';
export type { GoalsClient, GoalStartOptions } from './client/goals';
export type { EvalsClient, ExportOptions } from './client/evals';
export type { EvalRecording, RecordedCase } from './client/eval-recording';
export { goalEventRecord, type GoalEvent, type GoalEventType, type GoalTreeNode } from './client/goal-tree';
export {
  OVERLAP_POLICIES,
  ScheduleError,
  type Overlap,
  type ScheduleDefinition,
  type ScheduleReport,
  type ScheduleTiming,
  type WaveloopSchedules,
} from './client/schedules';

// The contract, for any Temporal client: workflow names, inputs, results, queries and updates.
export {
  AGENT_LOOP_WORKFLOW,
  AgentLoopInputSchema,
  type AgentChain,
  type AgentChainLink,
  type AgentLoopInput,
  type AgentLoopResult,
  type AgentRunRecord,
  type ApprovalRecord,
  type ChatMessage,
  RUN_STATES,
  RUN_STATUSES,
  WAITING_STATES,
  type RunProgress,
  type RunState,
  type RunStatus,
  type SettlingWave,
  type ToolCallRecord,
  type WaveRecord,
} from './contract/agent-loop';
export type { HandoffRecord } from './contract/handoff';
export type { Usage } from './contract/model/usage';
export {
  EVAL_WORKFLOW,
  type EvalCase,
  type EvalCaseReport,
  type EvalExpect,
  type EvalInput,
  type EvalReport,
  type EvalRunResult,
  type EvalSummary,
  type Score,
} from './contract/eval/eval';
export { FailureType } from './contract/errors';
export { FORKED_FROM_MEMO, ForkRefusedError, type ForkedFrom } from './contract/fork/fork';
export { ForkSchema, type ForkInput } from './contract/fork/schema';
export { PURSUE_GOAL_WORKFLOW } from './contract/goal-tree/defaults';
export {
  GoalTreeInputSchema,
  type GoalReport,
  type GoalResult,
  type GoalStatus,
  type GoalTreeInput,
} from './contract/goal-tree/pursue-goal';
export {
  DELIVER_WEBHOOKS_WORKFLOW,
  type WebhookBody,
  type WebhookEvent,
  type WebhookPending,
} from './contract/webhooks/webhooks';
export {
  answerUpdate,
  approveUpdate,
  denyUpdate,
  endUpdate,
  sendUpdate,
  statusQuery,
  transcriptQuery,
} from './contract/messages';
