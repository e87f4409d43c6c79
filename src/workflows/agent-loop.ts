import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities';
import {
  DEFAULT_MODEL_ACTIVITY_OPTIONS,
  RESOLVE_RUN_ACTIVITY_OPTIONS,
  TOOL_HEARTBEAT_TIMEOUT_MS,
} from '../common/activity-options';
import type { ResolvedRun, ToolInfo } from '../common/activity-io';
import {
  addUsage,
  AgentLoopInputSchema,
  ZERO_USAGE,
  type AgentLoopInput,
  type AgentLoopResult,
  type ChatMessage,
  type RunProgress,
  type RunStatus,
  type ToolCallMessagePart,
  type ToolCallRecord,
  type WaveRecord,
} from '../common/contract';
import { FailureType } from '../common/errors';
import { statusQuery, transcriptQuery } from './messages';
import { plannerFor } from './planners';
import { modelSummary, toolSummary } from './summaries';

type Activities = ReturnType<typeof createActivities>;

const { resolveRun } = proxyActivities<Activities>(RESOLVE_RUN_ACTIVITY_OPTIONS);
const { callModel } = proxyActivities<Activities>(DEFAULT_MODEL_ACTIVITY_OPTIONS);
const { runTool } = proxyActivities<Activities>({ startToCloseTimeout: '1 minute' });

/**
 * The agent loop (seeds 000, 001, 003, 004). The workflow owns the loop; activities only execute.
 * Each iteration is one model call; the tool calls of its reply run as one wave of parallel
 * activities, and their results go back to the model in call order. The loop ends when the model
 * answers without tool calls, when a loop-breaking tool (`task_complete`) succeeds, or when the
 * iteration limit is reached (status `max_iterations`, with the last thing the model said).
 * How replies become waves is the run's planner's business: native tool calls, or JSON wave plans.
 */
export async function agentLoop(rawInput: unknown): Promise<AgentLoopResult> {
  const messages: ChatMessage[] = [];
  const progress: RunProgress = {
    status: 'running',
    iteration: 0,
    maxIterations: 0,
    phase: 'starting',
    agent: '',
    model: '',
    waves: [],
    usage: ZERO_USAGE,
  };
  // Registered first, so even a run that fails on its input answers its queries.
  setHandler(statusQuery, () => progress);
  setHandler(transcriptQuery, () => messages);

  try {
    return await loop(rawInput, progress, messages);
  } catch (err) {
    Object.assign(progress, { status: 'failed', phase: 'done' });
    throw err;
  }
}

async function loop(rawInput: unknown, progress: RunProgress, messages: ChatMessage[]): Promise<AgentLoopResult> {
  const { workflowId, runId } = workflowInfo();
  const waves = progress.waves;
  const input = parseInput(rawInput);
  const run = await resolve(input);
  Object.assign(progress, { agent: run.agent, model: run.model, maxIterations: run.maxIterations });
  messages.push({ role: 'system', content: run.system }, { role: 'user', content: input.goal });
  const tools = new Map(run.tools.map((tool) => [tool.name, tool]));

  const finish = (status: RunStatus, answer: string): AgentLoopResult => {
    Object.assign(progress, { status, phase: 'done' });
    return { status, answer, iterations: progress.iteration, waves, usage: progress.usage };
  };

  const planner = plannerFor(run.planner);
  let lastText = '';
  while (progress.iteration < run.maxIterations) {
    progress.iteration += 1;
    const iteration = progress.iteration;

    progress.phase = 'model';
    const reply = await askModel({
      workflowId,
      runId,
      messageCount: messages.length,
      model: run.model,
      tools: run.tools.map((tool) => tool.name),
      planner: run.planner,
      iteration,
    });
    progress.usage = addUsage(progress.usage, reply.usage);
    messages.push(reply.message);

    const step = planner.read(reply.message, iteration);
    if (step.kind === 'answer') return finish('completed', step.answer);
    if (step.text) lastText = step.text;
    if (step.kind === 'retry') {
      messages.push({ role: 'user', content: `Your reply could not be used: ${step.feedback}` });
      continue;
    }

    progress.phase = 'tools';
    const wave: WaveRecord = { iteration, calls: await runWave(iteration, step.calls, tools, workflowId) };
    waves.push(wave);
    messages.push(...planner.report(wave));

    const completion = wave.calls.find((record) => record.ok && tools.get(record.tool)?.loopBreaking);
    if (completion) return finish('completed', completion.result ?? '');
  }
  return finish('max_iterations', lastText);
}

function parseInput(rawInput: unknown): AgentLoopInput {
  const parsed = AgentLoopInputSchema.safeParse(rawInput);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`);
  throw ApplicationFailure.create({
    type: FailureType.InvalidInput,
    message: `Invalid agentLoop input: ${problems.join('; ')}`,
    nonRetryable: true,
  });
}

async function resolve(input: AgentLoopInput): Promise<ResolvedRun> {
  try {
    return await resolveRun.executeWithOptions({ ...RESOLVE_RUN_ACTIVITY_OPTIONS, summary: 'resolve agent and tools' }, [input]);
  } catch (err) {
    throw asRunFailure(err, 'Resolving the agent failed');
  }
}

async function askModel(request: Parameters<Activities['callModel']>[0]) {
  try {
    return await callModel.executeWithOptions(
      { ...DEFAULT_MODEL_ACTIVITY_OPTIONS, summary: modelSummary(request.iteration) },
      [request],
    );
  } catch (err) {
    throw asRunFailure(err, `The model call of iteration ${request.iteration} kept failing`, FailureType.ModelUnavailable);
  }
}

/**
 * Turns an activity failure into the run's failure: a non-retryable cause keeps its type and
 * message (say `ModelAuthentication`); retries that ran out become `fallbackType`.
 */
function asRunFailure(err: unknown, context: string, fallbackType?: string): unknown {
  // A cancelled run ends as cancelled, not as failed.
  if (!(err instanceof ActivityFailure) || isCancellation(err)) return err;
  const cause = err.cause;
  if (cause instanceof ApplicationFailure && cause.nonRetryable) {
    return ApplicationFailure.create({ type: cause.type ?? undefined, message: cause.message, nonRetryable: true, cause });
  }
  return ApplicationFailure.create({
    type: fallbackType ?? 'ActivityFailed',
    message: `${context}: ${cause?.message ?? err.message}`,
    nonRetryable: true,
    cause: err,
  });
}

/**
 * Runs the tool calls of one model reply as one wave: every call is scheduled in the same workflow
 * task, so all of them start before any completes. A call the model got wrong (unknown tool,
 * arguments that are not a JSON object) is answered here without an activity; a failing tool
 * becomes an error the model sees. Nothing here fails the run.
 */
async function runWave(
  iteration: number,
  calls: ToolCallMessagePart[],
  tools: Map<string, ToolInfo>,
  workflowId: string,
): Promise<ToolCallRecord[]> {
  return Promise.all(
    calls.map(async (call): Promise<ToolCallRecord> => {
      const name = call.function.name;
      const args = parseArguments(call.function.arguments);
      const record = { id: call.id, tool: name, args: args.ok ? args.value : {} };
      const tool = tools.get(name);
      if (!tool) {
        const available = [...tools.keys()].join(', ');
        return { ...record, ok: false, error: `Unknown tool "${name}". Available tools: ${available}.` };
      }
      if (!args.ok) return { ...record, ok: false, error: args.error };
      try {
        const output = await runTool.executeWithOptions(
          {
            summary: toolSummary(iteration, name, args.value),
            startToCloseTimeout: tool.timeoutMs,
            heartbeatTimeout: Math.max(tool.timeoutMs, TOOL_HEARTBEAT_TIMEOUT_MS),
            retry: {
              maximumAttempts: tool.maximumAttempts,
              initialInterval: tool.initialIntervalMs,
              backoffCoefficient: tool.backoffCoefficient,
              maximumInterval: tool.maximumIntervalMs,
              nonRetryableErrorTypes: [FailureType.InvalidToolArguments, FailureType.ToolError],
            },
          },
          [{ workflowId, toolCallId: call.id, name, args: args.value }],
        );
        return { ...record, ok: true, result: output.content };
      } catch (err) {
        return { ...record, ok: false, error: describeToolFailure(err) };
      }
    }),
  );
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

function parseArguments(text: string): Parsed<Record<string, unknown>> {
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `the arguments are not valid JSON (${(err as Error).message}): ${text.slice(0, 200)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: `the arguments must be a JSON object, got: ${text.slice(0, 200)}` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

function describeToolFailure(err: unknown): string {
  if (err instanceof ActivityFailure) {
    const cause = err.cause;
    if (cause instanceof ApplicationFailure) return cause.message;
    return cause?.message ?? err.message;
  }
  return err instanceof Error ? err.message : String(err);
}

