/**
 * The names in waveloop's spans: the OpenTelemetry GenAI semantic conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/) where they name the thing, `waveloop.*`
 * for what is waveloop's own. The workflow writes them; the worker filters them before export.
 */

/** `gen_ai.operation.name` values, which also start the span names (`chat gpt-4o`). */
export const GenAiOperation = {
  /** One run of an agent (`agentLoop`) or one goal of a goal tree (`pursueGoal`). */
  InvokeAgent: 'invoke_agent',
  /** One model call: a turn of the loop, a summary of the transcript, a step of a goal. */
  Chat: 'chat',
  /** One tool call of a wave. */
  ExecuteTool: 'execute_tool',
} as const;

export const Attr = {
  operationName: 'gen_ai.operation.name',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  errorType: 'error.type',

  /** The run's (or goal's) workflow id. */
  workflowId: 'waveloop.workflow.id',
  /** The loop's iteration: the model call that asked for a wave, and that wave's calls. */
  iteration: 'waveloop.iteration',
  /** How many tool calls the iteration's wave has. */
  waveSize: 'waveloop.wave.size',
  /** The activity that made a model call (`callModel`, `summarizeTranscript`, `assessGoal`, …). */
  activity: 'waveloop.activity',
  /** Whether the call ran as a local activity. */
  local: 'waveloop.local',
  /** How a person decided a call that needed approval: `approved` or `denied`. */
  approvalOutcome: 'waveloop.approval.outcome',
  /** How the run or goal ended: its result's status, `failed`, or `continued_as_new`. */
  status: 'waveloop.status',
  /** How many iterations the run made (its result's `iterations`). */
  iterations: 'waveloop.iterations',
  /** How deep a goal is in its tree (the root is 0). */
  goalDepth: 'waveloop.goal.depth',
} as const;

/**
 * Attributes that carry what the model and the tools said: prompts, replies, tool arguments and
 * results. The worker drops them before export unless content tracing is on
 * (`WAVELOOP_TRACE_CONTENT=true`).
 */
export const ContentAttr = {
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  systemInstructions: 'gen_ai.system_instructions',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
} as const;

export const CONTENT_ATTRIBUTES: readonly string[] = Object.values(ContentAttr);

/** The span event that records an approval decision on the run's `invoke_agent` span. */
export const APPROVAL_EVENT = 'waveloop.approval';
