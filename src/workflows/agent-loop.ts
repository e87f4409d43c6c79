import {
  ActivityFailure,
  ApplicationFailure,
  ContinueAsNew,
  continueAsNew,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities';
import {
  DEFAULT_CIRCUIT_BREAKER,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_HISTORY_EVENTS,
  DEFAULT_MODEL_ACTIVITY_OPTIONS,
  LOCAL_MODEL_ACTIVITY_OPTIONS,
  RESOLVE_RUN_ACTIVITY_OPTIONS,
  SEARCH_ATTRIBUTE_REFRESH_MS,
} from '../common/activity-options';
import type { ModelCallInput, ModelCallOutput, ResolvedRun, ToolInfo, ToolResultRef } from '../common/activity-io';
import type { AgentLoopInput, AgentLoopResult, ChatMessage, RunProgress, RunStatus, ToolCallRecord, WaveRecord } from '../common/contract';
import { FailureType } from '../common/errors';
import { WAVELOOP_ITERATION, WAVELOOP_STATUS, WAVELOOP_TOKENS } from '../common/search-attributes';
import { textHash } from '../common/text-hash';
import { addUsage, usageReport, ZERO_USAGE, type Usage } from '../common/usage';
import { alarm } from './alarm';
import { budgetProblem, CircuitBreaker, iterationWarning, softDeadline } from './limits';
import { clippedWaves, compacted, compactionRange } from './compaction';
import { HumanGate } from './human-gate';
import { lazy } from './lazy';
import { statusQuery, transcriptQuery } from '../common/messages';
import { plannerFor } from './planners';
import { modelSummary } from '../common/summaries';
import { DENIED, runWave } from './wave';

type Activities = ReturnType<typeof createActivities>;


const { resolveRun } = proxyActivities<Activities>(RESOLVE_RUN_ACTIVITY_OPTIONS);
const { resolveRun: resolveRunLocally } = proxyLocalActivities<Activities>(RESOLVE_RUN_ACTIVITY_OPTIONS);
const { callModel, summarizeTranscript } = proxyActivities<Activities>(DEFAULT_MODEL_ACTIVITY_OPTIONS);
const { callModel: callModelLocally } = proxyLocalActivities<Activities>(LOCAL_MODEL_ACTIVITY_OPTIONS);

/**
 * Changes guarded by `patched()`, so runs recorded before them replay (README, "Development"):
 * - `resolveRun` is a local activity: a lookup in the worker's registry, it needs no trip through
 *   the task queue, and a run's first model call starts in its first workflow task.
 * - Search attributes are upserted when the status changes, and otherwise at most every
 *   `SEARCH_ATTRIBUTE_REFRESH_MS`: each upsert is a history event and a visibility write.
 * - The input is validated by `resolveRun` on the worker, not in the workflow: validation needs zod,
 *   and every workflow that imports zod evaluates it anew when it starts (src/workflows/lazy.ts).
 */
const PATCH_LOCAL_RESOLVE = 'resolve-run-local-activity';
const PATCH_SEARCH_ATTRIBUTES_ON_CHANGE = 'search-attributes-on-change';
/**
 * No decision reads the workflow clock (`Date.now()`) any more; the choice is made once, when the run
 * starts. The pace of those upserts is measured by the model replies' own times
 * (`ModelCallOutput.at`, in the history), and the soft deadline is a durable timer whose firing is in
 * the history. Before, a run decided at each change whether the last upsert was recent, by
 * `Date.now()`, and called `patched()` only then; and it compared `Date.now()` with its deadline
 * before each model call. A worker that took such a run over and replayed it could read the clock
 * otherwise and fail the run's workflow task as nondeterministic (the crash matrix caught it,
 * `npm run test:chaos`; test/replay/replay.test.ts "workflow clock").
 */
const PATCH_CLOCK_FROM_HISTORY = 'clock-from-history';
const PATCH_VALIDATE_IN_RESOLVE = 'validate-input-in-resolve-run';
/** A model call refused as longer than the context window prunes the transcript and asks again (README "Memory"). */
const PATCH_COMPACT_ON_OVERFLOW = 'compact-on-context-overflow';
/** A plain-prose reply of a model that planned with `<tool>` blocks is its answer (seed 004), not a plan that did not parse. */
const PATCH_TAGGED_PROSE_ANSWER = 'tagged-prose-answer';
/** Past this share of the model's context window, the transcript is pruned before the next model call. */
export const CONTEXT_PRUNE_SHARE = 0.8;

/**
 * The agent loop (seeds 000, 001, 003, 004). The workflow owns the loop; activities only execute.
 * Each iteration is one model call; the tool calls of its reply run as one wave of parallel
 * activities, and their results go back to the model in call order. The loop ends when the model
 * answers without tool calls, when a loop-breaking tool (`task_complete`) succeeds, or when a limit
 * is reached: the iteration limit (`max_iterations`, with the last thing the model said), a token or
 * cost budget (`budget_exhausted`), the soft deadline before the execution timeout (`deadline`), the
 * circuit breaker (`circuit_open`), or cancellation (`cancelled`). Budgets and the deadline give the
 * model one last call to answer from what it has. How replies become waves is the run's planner's
 * business: native tool calls, or JSON wave plans.
 */
export async function agentLoop(rawInput: unknown): Promise<AgentLoopResult> {
  const run = new AgentRun();
  try {
    return await run.loop(rawInput);
  } catch (err) {
    if (isCancellation(err) && run.started) return run.finish('cancelled', run.lastText);
    if (err instanceof ContinueAsNew) throw err;
    Object.assign(run.progress, { status: 'failed', phase: 'done' });
    throw withUsageReport(err, run.progress.usage);
  }
}

/** A run's failure, with what the run used in its details (a goal tree's parent counts it). */
function withUsageReport(err: unknown, usage: Usage): unknown {
  if (!(err instanceof ApplicationFailure) || usage.totalTokens === 0 || err.details?.length) return err;
  return ApplicationFailure.create({
    type: err.type ?? undefined,
    message: err.message,
    nonRetryable: err.nonRetryable ?? undefined,
    cause: err.cause,
    details: [usageReport(usage)],
  });
}

class AgentRun {
  readonly messages: ChatMessage[] = [];
  readonly progress: RunProgress = {
    status: 'running',
    iteration: 0,
    maxIterations: 0,
    phase: 'starting',
    agent: '',
    model: '',
    waves: [],
    usage: ZERO_USAGE,
    pendingQuestions: [],
    pendingApprovals: [],
  };
  lastText = '';
  started = false;
  private readonly gate: HumanGate;

  constructor() {
    // Registered first, so even a run that fails on its input answers its queries.
    setHandler(statusQuery, () => this.progress);
    setHandler(transcriptQuery, () => this.messages);
    this.gate = new HumanGate(this.progress, () => this.publish());
  }

  /** Whether the namespace has waveloop's search attributes (from `resolveRun`). */
  private searchAttributes = false;
  /** Whether the run's decisions take time from its history (runs started since PATCH_CLOCK_FROM_HISTORY). */
  private clockFromHistory = false;
  /** When the latest model reply arrived, as its activity recorded it (`ModelCallOutput.at`). */
  private replyAt: number | undefined;
  private published = { values: '', status: '', at: 0 };

  /**
   * Keeps the run's search attributes current, if the namespace has them: the status at once, the
   * iteration and tokens within `SEARCH_ATTRIBUTE_REFRESH_MS` of model replies (and exact whenever
   * the status changes). Every input of the decision is in the history, so a replay decides alike.
   */
  publish(): void {
    if (!this.searchAttributes) return;
    const { status, iteration, usage } = this.progress;
    const values = `${status}/${iteration}/${usage.totalTokens}`;
    if (values === this.published.values) return;
    if (this.clockFromHistory) {
      const at = this.replyAt;
      if (status === this.published.status && at !== undefined && at - this.published.at < SEARCH_ATTRIBUTE_REFRESH_MS) return;
      this.published = { values, status, at: at ?? 0 };
    } else {
      // Runs started before the change replay as they were recorded.
      const recent = status === this.published.status && Date.now() - this.published.at < SEARCH_ATTRIBUTE_REFRESH_MS;
      if (recent && patched(PATCH_SEARCH_ATTRIBUTES_ON_CHANGE)) return;
      this.published = { values, status, at: Date.now() };
    }
    upsertSearchAttributes([
      { key: WAVELOOP_STATUS, value: status },
      { key: WAVELOOP_ITERATION, value: iteration },
      { key: WAVELOOP_TOKENS, value: usage.totalTokens },
    ]);
  }

  finish(status: RunStatus, answer: string): AgentLoopResult {
    Object.assign(this.progress, { status, phase: 'done', pendingQuestions: [], pendingApprovals: [], conversation: undefined });
    this.publish();
    const { iteration, waves, usage } = this.progress;
    return { status, answer, iterations: iteration, waves, usage };
  }

  async loop(rawInput: unknown): Promise<AgentLoopResult> {
    const { workflowId, runId, executionExpirationTime, executionTimeoutMs, runStartTime, startTime } = workflowInfo();
    const { progress, messages } = this;
    this.clockFromHistory = patched(PATCH_CLOCK_FROM_HISTORY);
    const input = patched(PATCH_VALIDATE_IN_RESOLVE) ? unvalidated(rawInput) : lazy.contract().parseAgentLoopInput(rawInput);
    const carried = input.continuation;
    const run = carried ? carried.run : withDefaults(await resolve(input));
    this.started = true;
    this.searchAttributes = run.searchAttributes ?? false;
    this.publish();
    Object.assign(progress, { agent: run.agent, model: run.model, maxIterations: run.maxIterations, handOvers: carried?.handOvers ?? 0 });
    if (carried) {
      messages.push(...carried.messages);
      progress.waves.push(...carried.waves);
      Object.assign(progress, { usage: carried.usage, iteration: carried.iteration });
      this.lastText = carried.lastText;
    } else {
      messages.push({ role: 'system', content: run.system }, { role: 'user', content: input.goal });
    }
    const tools = new Map(run.tools.map((tool) => [tool.name, tool]));
    const planner = plannerFor(run.planner, { proseAnswers: () => patched(PATCH_TAGGED_PROSE_ANSWER), earlier: carried?.messages });
    const breaker = new CircuitBreaker(run.circuitBreaker);
    // When the chain started: its start event's time (a run's first workflow task may start later).
    const startedAtMs = carried?.startedAtMs ?? (this.clockFromHistory ? startTime : runStartTime).getTime();
    const deadline = earliest(softDeadline(executionExpirationTime, executionTimeoutMs), run.timeoutMs === undefined ? undefined : startedAtMs + run.timeoutMs);
    const pastDeadline = deadline === undefined ? () => false : this.clockFromHistory ? alarm(deadline, startTime.getTime()) : () => Date.now() >= deadline;
    // What the previous model call of this run saw plus its reply: the next call sends only what
    // came after (`ModelCallInput.delta`), and a worker that kept the rest needs no query. A local
    // model call gets the whole transcript instead (its input is not recorded).
    let previous: { seen: number; replyId: string } | undefined;
    // The calls of the latest wave whose results `runTool` returned: the worker that ran them kept
    // them, so the next model call names them instead of carrying them (`ModelCallInput.delta`).
    let fromRunTool = new Set<string>();
    const byReference = (message: ChatMessage): ChatMessage | ToolResultRef =>
      message.role === 'tool' && fromRunTool.has(message.tool_call_id)
        ? { role: 'tool', tool_call_id: message.tool_call_id, result: { chars: message.content.length, hash: textHash(message.content) } }
        : message;
    const request = (iteration: number, overrides: Partial<ModelCallInput> = {}): ModelCallInput => ({
      workflowId,
      runId,
      messageCount: messages.length,
      model: run.model,
      tools: run.tools.map((tool) => tool.name),
      planner: run.planner,
      iteration,
      ...(run.localModelCalls
        ? { messages }
        : previous
          ? { delta: { from: previous.seen, messages: messages.slice(previous.seen).map(byReference), replyId: previous.replyId } }
          : opening(messages)),
      ...overrides,
    });
    /** A model call's reply joins the transcript. */
    const heard = (reply: ModelCallOutput) => {
      messages.push(reply.message);
      previous = reply.replyId ? { seen: messages.length, replyId: reply.replyId } : undefined;
      this.replyAt = reply.at;
      seenByLastCall = messages.length;
      compactedSinceCall = false;
      return reply;
    };
    // What the latest model call saw, for the context-window estimate (memory pruning). A run handed
    // over has its transcript compacted already: the estimate waits for its first call's usage.
    let seenByLastCall = messages.length;
    let compactedSinceCall = carried !== undefined;

    /** One last model call without tools, so a run stopped by a limit still answers with what it has. */
    const wrapUp = async (status: RunStatus, reason: string): Promise<AgentLoopResult> => {
      messages.push({ role: 'user', content: `Stop here: ${reason}. Give your final answer now from what you have found so far, without calling tools.` });
      progress.phase = 'model';
      const reply = heard(await askModel(request(progress.iteration + 1, { tools: [], planner: 'native' })));
      progress.usage = addUsage(progress.usage, reply.usage);
      return this.finish(status, reply.message.content || this.lastText);
    };

    let lastCall: Usage | undefined = carried?.lastCall;
    // In a conversation, each turn (each message from the person) gets the full iteration limit.
    let turnStart = carried?.turnStart ?? 0;

    /**
     * The transcript with its older part replaced by the model's summary of it (seed 004's memory
     * pruning: the system prompt, the goal and the recent turns are kept), or undefined when there is
     * nothing to drop. `label` names the summary activity in the history.
     */
    const summarized = async (label: string): Promise<ChatMessage[] | undefined> => {
      const range = compactionRange(messages);
      if (!range) return undefined;
      let summary: string;
      try {
        const out = await summarizeTranscript.executeWithOptions(
          { ...DEFAULT_MODEL_ACTIVITY_OPTIONS, summary: `${label} · summarize ${range.to - range.from} messages` },
          [{ workflowId, runId, from: range.from, to: range.to, model: run.model, ...(run.contextTokens ? { maxChars: run.contextTokens * 2 } : {}) }],
        );
        progress.usage = addUsage(progress.usage, out.usage);
        summary = out.summary;
      } catch (err) {
        if (isCancellation(err)) throw err;
        summary = '(The summary of these messages could not be made; they were dropped.)';
      }
      return compacted(messages, range, summary);
    };
    /** Prunes the transcript within this run; the next model call carries it whole. False when there was nothing to drop. */
    const compactInPlace = async (): Promise<boolean> => {
      const kept = await summarized('memory');
      if (!kept) return false;
      messages.splice(0, messages.length, ...kept);
      previous = undefined;
      compactedSinceCall = true;
      return true;
    };
    /**
     * Whether the next model call would fill more than `CONTEXT_PRUNE_SHARE` of the model's context
     * window: the latest call's tokens plus what came after it (about 4 characters a token).
     */
    const contextNearlyFull = (): boolean => {
      if (!run.contextTokens || !lastCall || compactedSinceCall) return false;
      const added = messages.slice(seenByLastCall).reduce((n, message) => n + (message.content?.length ?? 0), 0);
      return lastCall.promptTokens + lastCall.completionTokens + Math.ceil(added / 4) > run.contextTokens * CONTEXT_PRUNE_SHARE;
    };

    /**
     * A conversation's turn is out (`message`): waits for the person's next message, which joins the
     * transcript and starts a turn with the full iteration limit. False when the conversation ended.
     */
    const nextTurn = async (message: string): Promise<boolean> => {
      progress.phase = 'waiting';
      const turn = await this.gate.converse(message, run.idleTimeoutMs);
      if (turn.kind !== 'message') return false;
      messages.push({ role: 'user', content: turn.text });
      turnStart = progress.iteration;
      return true;
    };

    /** Whether the history has grown long enough for a hand-over (checked without an `await`: see `askModel`). */
    const handOverDue = () => {
      const info = workflowInfo();
      return info.continueAsNewSuggested || info.historyLength >= (run.maxHistoryEvents ?? DEFAULT_MAX_HISTORY_EVENTS);
    };
    /**
     * Hands the run over to a fresh run of the same workflow (continue-as-new) when its history has
     * grown long, at an iteration boundary, where nothing waits on a person or a tool. The older part
     * of the transcript is summarised by the model (seed 004's memory pruning); budgets, waves and
     * counters carry over.
     */
    const handOver = async (): Promise<void> => {
      const kept = (await summarized('hand-over')) ?? messages;
      const { continuation: _previous, ...original } = input;
      await continueAsNew<typeof agentLoop>({
        ...original,
        continuation: {
          run,
          messages: kept,
          waves: clippedWaves(progress.waves),
          usage: progress.usage,
          iteration: progress.iteration,
          turnStart,
          lastText: this.lastText,
          lastCall,
          handOvers: (carried?.handOvers ?? 0) + 1,
          startedAtMs,
        },
      });
    };

    while (progress.iteration - turnStart < run.maxIterations) {
      if (handOverDue()) await handOver();
      const overBudget = budgetProblem(run.budget, progress.usage, lastCall);
      if (overBudget) return wrapUp('budget_exhausted', overBudget);
      if (pastDeadline()) return wrapUp('deadline', 'the time limit of this run is close');

      if (contextNearlyFull()) await compactInPlace();

      progress.iteration += 1;
      const iteration = progress.iteration;
      progress.phase = 'model';
      const ask = () => askModel(request(iteration, { systemNote: iterationWarning(iteration - turnStart, run.maxIterations) }));
      let answer: ModelCallOutput;
      try {
        answer = await ask();
      } catch (err) {
        // The endpoint says the transcript no longer fits (a model whose window is unknown, or an
        // estimate that fell short): prune it once and ask again.
        if (!isContextExceeded(err) || !patched(PATCH_COMPACT_ON_OVERFLOW) || !(await compactInPlace())) throw err;
        answer = await ask();
      }
      const reply = heard(answer);
      lastCall = reply.usage;
      progress.usage = addUsage(progress.usage, reply.usage);
      this.publish();

      const step = planner.read(reply.message, iteration);
      if (step.kind === 'answer') {
        // In a chat the answer is this turn's; the run waits for the person's next message.
        if (!run.conversation || !(await nextTurn(step.answer))) return this.finish('completed', step.answer);
        this.lastText = step.answer;
        continue;
      }
      if (step.text) {
        this.lastText = step.text;
        progress.said = { iteration, text: step.text };
      }
      if (step.kind === 'retry') {
        messages.push({ role: 'user', content: `Your reply could not be used: ${step.feedback}` });
        const opened = breaker.record('(planner)', false, step.feedback);
        if (opened) return this.finish('circuit_open', `Circuit open: ${opened}`);
        continue;
      }

      progress.phase = 'tools';
      const settling: WaveRecord = { iteration, calls: [] };
      progress.settling = settling;
      let calls: ToolCallRecord[];
      try {
        calls = await runWave(step.calls, {
          iteration,
          tools,
          workflowId,
          gate: this.gate,
          answerTimeoutMs: run.answerTimeoutMs,
          settled: (record) => settling.calls.push(record),
        });
      } finally {
        delete progress.settling;
      }
      const wave: WaveRecord = { iteration, calls };
      progress.waves.push(wave);
      messages.push(...planner.report(wave));
      fromRunTool = new Set(calls.filter((call) => call.ok && tools.has(call.tool) && !tools.get(call.tool)!.interaction).map((call) => call.id));

      const ended = (kind: ToolInfo['interaction'] | 'complete') =>
        wave.calls.find((record) => {
          const tool = tools.get(record.tool);
          return record.ok && tool?.loopBreaking && (tool.interaction ?? 'complete') === kind;
        });
      const completion = ended('complete');
      if (completion) return this.finish('completed', completion.result ?? '');
      for (const record of wave.calls) {
        if (record.error?.startsWith(DENIED)) continue;
        const opened = breaker.record(record.tool, record.ok, record.error);
        if (opened) return this.finish('circuit_open', `Circuit open: ${opened}`);
      }

      const said = ended('conversation');
      if (said && !(await nextTurn(said.result ?? ''))) return this.finish('completed', said.result ?? '');
    }
    return this.finish('max_iterations', this.lastText);
  }

}

/**
 * Fills what a `resolveRun` result recorded by an older worker lacks, so runs that started before
 * an upgrade replay and carry on (the replay tests hold such histories).
 */
function withDefaults(run: ResolvedRun): ResolvedRun {
  return {
    ...run,
    planner: run.planner ?? 'native',
    budget: run.budget ?? { price: null },
    circuitBreaker: run.circuitBreaker ?? DEFAULT_CIRCUIT_BREAKER,
    idleTimeoutMs: run.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
  };
}

/**
 * A run's first model call carries its opening messages (the system prompt and the goal) when they
 * are short, sparing the worker a query for them; longer ones are read through the query, so history
 * does not record a long goal twice.
 */
function opening(messages: ChatMessage[]): Pick<ModelCallInput, 'delta'> {
  const chars = messages.reduce((n, message) => n + (message.content?.length ?? 0), 0);
  return chars <= OPENING_MAX_CHARS ? { delta: { from: 0, messages, replyId: '' } } : {};
}
const OPENING_MAX_CHARS = 8_000;

/**
 * The input as sent, for `resolveRun` to validate on the worker (a continuation comes from this
 * workflow itself, and is not resolved again). What is not even an object, or carries a continuation
 * that is not one, fails here as it always did, with the same `InvalidInput` error.
 */
function unvalidated(rawInput: unknown): AgentLoopInput {
  const input = rawInput as Partial<AgentLoopInput> | null;
  if (typeof input !== 'object' || input === null || Array.isArray(input) || (input.continuation !== undefined && (typeof input.continuation !== 'object' || input.continuation === null))) {
    return lazy.contract().parseAgentLoopInput(rawInput);
  }
  // The schema trims the goal; `resolveRun` refuses any goal that is not a string.
  return { ...input, goal: typeof input.goal === 'string' ? input.goal.trim() : (input.goal as unknown as string) };
}

async function resolve(input: AgentLoopInput): Promise<ResolvedRun> {
  try {
    const options = { ...RESOLVE_RUN_ACTIVITY_OPTIONS, summary: 'resolve agent and tools' };
    return await (patched(PATCH_LOCAL_RESOLVE) ? resolveRunLocally : resolveRun).executeWithOptions(options, [input]);
  } catch (err) {
    throw asRunFailure(err, 'Resolving the agent failed');
  }
}

/**
 * A model call; one that carries the whole transcript runs as a local activity (`localModelCalls`).
 * Not an async function, and the loop checks for a hand-over without awaiting: the SDK captures a
 * stack trace, mapped through the bundle's source map, for every promise workflow code creates
 * (~0.1 ms each on a 2-core VM, a replay of a 150-iteration run measured), and an iteration made 16.
 */
function askModel(request: ModelCallInput): Promise<ModelCallOutput> {
  const summary = modelSummary(request.iteration);
  const call = request.messages
    ? callModelLocally.executeWithOptions({ ...LOCAL_MODEL_ACTIVITY_OPTIONS, summary }, [request])
    : callModel.executeWithOptions({ ...DEFAULT_MODEL_ACTIVITY_OPTIONS, summary }, [request]);
  return call.catch((err: unknown) => {
    throw asRunFailure(err, `The model call of iteration ${request.iteration} kept failing`, FailureType.ModelUnavailable);
  });
}

/** The earliest of the times that are set (epoch ms), if any. */
function earliest(...times: Array<number | undefined>): number | undefined {
  const known = times.filter((time): time is number => time !== undefined);
  return known.length ? Math.min(...known) : undefined;
}

/** Whether a model call failed because the transcript no longer fits the model's context window. */
function isContextExceeded(err: unknown): boolean {
  return err instanceof ApplicationFailure && err.type === FailureType.ModelContextExceeded;
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

