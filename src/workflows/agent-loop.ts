import { ContinueAsNew, isCancellation, setHandler, workflowInfo } from '@temporalio/workflow';
import type { ForkPoint, ModelCallInput, ModelCallOutput, ResolvedRun, ToolInfo } from '../contract/activity-io';
import type {
  AgentLoopInput,
  AgentLoopResult,
  RunProgress,
  RunStatus,
  ToolCallMessagePart,
  WaveRecord,
} from '../contract/agent-loop';
import { modelTranscriptQuery, transcriptQuery } from '../contract/messages';
import { addUsage, type Usage } from '../contract/model/usage';
import { alarm } from './alarm';
import { clippedWaves } from './compaction';
import { startingState, type Continuation } from './continuation';
import { firstMessages, forkPoint, recordForkedFrom } from './fork';
import { handOff, handoffIn } from './handoff';
import { HumanGate } from './human-gate';
import { runDeadline, RunLimits } from './limits';
import { Memory } from './memory';
import { askModel, isContextExceeded, modelRequest, resolveRun, withUsageReport } from './model-calls';
import { plannerFor, type PlannerRules } from './planners';
import { Publisher } from './publishing';
import { RunReports } from './run-reports';
import { Transcript } from './transcript';
import { TypedOutput, type OutputFields } from './typed-output';
import { loopBreak, ranOnWorker, runWave } from './wave';

/**
 * The agent loop. The workflow owns the loop; activities only execute. Each iteration is one model
 * call; the tool calls of its reply run as one wave of parallel activities, and their results go
 * back to the model in call order. The loop ends when the model answers without tool calls, when
 * a loop-breaking tool (`task_complete`) succeeds, or when a limit is reached: the iteration limit
 * (`max_iterations`, with the last thing the model said), a token or cost budget
 * (`budget_exhausted`) or the time limit (`deadline`), both with one last model call to answer from
 * what the run has, the circuit breaker (`circuit_open`), or cancellation (`cancelled`).
 *
 * `carried` is what the previous run of the chain handed over (continue-as-new), read only in a run
 * that was continued. A run with `input.fork` starts from the source's transcript (`firstMessages`).
 */
export async function agentLoop(input: AgentLoopInput, carried?: Continuation): Promise<AgentLoopResult> {
  const publisher = new Publisher(input.startedBy);
  const transcript = new Transcript(carried?.messages ?? []);
  setHandler(transcriptQuery, () => publisher.shownMessages(transcript.messages));
  setHandler(modelTranscriptQuery, () => transcript.messages);
  const gate = new HumanGate(publisher.progress, () => publisher.publish());
  let run: AgentRun | undefined;
  try {
    const handedOver = workflowInfo().continuedFromExecutionRunId ? carried : undefined;
    const resolved = handedOver?.run ?? (await resolveRun(input));
    const forked = !handedOver && input.fork ? await forkPoint(input.fork) : undefined;
    run = new AgentRun(input, resolved, handedOver, { publisher, transcript, gate, forked });
    const result = await run.loop();
    await run.reports.ended(result);
    return result;
  } catch (err) {
    if (isCancellation(err) && run) {
      const result = publisher.finish('cancelled', run.lastText);
      await run.reports.ended(result);
      return result;
    }
    if (err instanceof ContinueAsNew) throw err;
    publisher.failed();
    await run?.reports.failed(err);
    throw withUsageReport(err, publisher.progress.usage);
  }
}

class AgentRun {
  /** The last thing the model said: the answer of a run stopped by its iteration limit. */
  lastText = '';
  /** What the run tells beyond itself: its webhooks and its audit trail. */
  readonly reports: RunReports;
  private readonly progress: RunProgress;
  private readonly publisher: Publisher;
  private readonly transcript: Transcript;
  private readonly gate: HumanGate;
  private readonly tools: Map<string, ToolInfo>;
  private readonly planner: PlannerRules;
  private readonly limits: RunLimits;
  private readonly memory: Memory;
  private readonly output: TypedOutput;
  private readonly handOvers: number;
  /** When the chain started (its first run's start event), for the time limit. */
  private readonly startedAtMs: number;

  constructor(
    private readonly input: AgentLoopInput,
    private readonly run: ResolvedRun,
    carried: Continuation | undefined,
    parts: { publisher: Publisher; transcript: Transcript; gate: HumanGate; forked?: ForkPoint },
  ) {
    ({ publisher: this.publisher, transcript: this.transcript, gate: this.gate } = parts);
    const { startTime, executionExpirationTime, executionTimeoutMs } = workflowInfo();
    const state = startingState(carried, { startedAtMs: startTime.getTime(), forked: parts.forked });
    const { settings } = run;
    this.progress = this.publisher.start(run, state);
    ({ handOvers: this.handOvers, startedAtMs: this.startedAtMs, lastText: this.lastText } = state);
    if (!state.handedOver) this.transcript.add(...firstMessages(run.system, input, parts.forked));
    if (state.forkedFrom) {
      this.progress.forkedFrom = state.forkedFrom;
      recordForkedFrom(state.forkedFrom);
    }
    this.tools = new Map(run.tools.map((tool) => [tool.name, tool]));
    this.planner = plannerFor(settings.planner, { earlier: carried?.messages ?? parts.forked?.messages });
    const deadline = runDeadline(
      { expiration: executionExpirationTime, timeoutMs: executionTimeoutMs },
      { timeoutSeconds: settings.timeoutSeconds, startedAtMs: this.startedAtMs },
    );
    this.limits = new RunLimits(
      { ...settings, price: run.price },
      deadline === undefined ? () => false : alarm(deadline, startTime.getTime()),
      state.turnStart,
    );
    this.memory = new Memory(this.transcript, run, this.spend, state);
    this.output = new TypedOutput(run.output, state.outputRepairs);
    this.reports = new RunReports(input, run, { gate: this.gate, state, publisher: this.publisher });
  }

  /** Check limits → keep the transcript within bounds → ask the model → read the plan → run the wave → stop or repeat. */
  async loop(): Promise<AgentLoopResult> {
    const { progress, transcript, limits, memory, planner, tools } = this;
    this.publisher.publish();
    for (;;) {
      const stop = limits.check(progress.iteration, progress.usage, memory.lastCall);
      if (stop?.status === 'max_iterations') return this.finishLimited(stop.status, this.lastText);
      if (stop) return this.wrapUp(stop.status, stop.reason);
      if (memory.handOverDue()) {
        await this.reports.settle();
        await memory.handOver(this.input, this.continuation());
      }
      if (memory.nearlyFull()) await memory.prune();

      const iteration = ++progress.iteration;
      const reply = await this.ask(iteration);

      const step = planner.read(reply.message, iteration, reply.unreadableToolCall);
      if (step.kind === 'answer') {
        // In a chat the answer is this turn's; the run waits for the person's next message.
        if (!this.run.settings.conversation || !(await this.nextTurn(step.answer))) {
          const ended = await this.answered(step.answer);
          if (ended) return ended;
        }
        this.lastText = step.answer;
        continue;
      }
      if (step.text) {
        this.lastText = step.text;
        progress.said = { iteration, text: step.text };
      }
      if (step.kind === 'retry') {
        transcript.add({ role: 'user', content: `Your reply could not be used: ${step.feedback}` });
        const opened = limits.afterUnusableReply(step.feedback);
        if (opened) return this.finish('circuit_open', opened);
        continue;
      }

      const wave = await this.runWave(iteration, step.calls);
      const completion = loopBreak(wave.calls, tools, 'complete');
      if (completion) {
        const ended = await this.answered(completion.result ?? '');
        if (ended) return ended;
        this.lastText = completion.result ?? '';
        continue;
      }
      const handoff = handoffIn(wave, tools);
      if (handoff) return this.handOff(handoff);
      const verdict = limits.afterWave(wave.calls);
      if (verdict && 'opened' in verdict) return this.finish('circuit_open', verdict.opened);
      if (verdict) transcript.add({ role: 'user', content: verdict.note });
      const said = loopBreak(wave.calls, tools, 'conversation');
      if (said && !(await this.nextTurn(said.result ?? ''))) return this.finish('completed', said.result ?? '');
    }
  }

  /** The model call of `iteration`. Refused as too long for the context window, the transcript is pruned once and the call made again. */
  private async ask(iteration: number): Promise<ModelCallOutput> {
    this.progress.phase = 'model';
    this.publisher.describe();
    const request = () => this.request(iteration, { note: this.limits.warning(iteration) });
    let reply: ModelCallOutput;
    try {
      reply = await askModel(request(), this.run);
    } catch (err) {
      if (!isContextExceeded(err) || !(await this.memory.prune())) throw err;
      reply = await askModel(request(), this.run);
    }
    this.heard(reply);
    this.memory.measured(reply.usage);
    this.publisher.publish();
    return reply;
  }

  /** One last model call without tools, so a run stopped by a limit still answers with what it has. */
  private async wrapUp(status: RunStatus, reason: string): Promise<AgentLoopResult> {
    this.transcript.add({
      role: 'user',
      content: `Stop here: ${reason}. Give your final answer now from what you have found so far, without calling tools.`,
    });
    this.progress.phase = 'model';
    this.publisher.describe();
    const reply = await askModel(this.request(this.progress.iteration + 1, { tools: [], planner: 'native' }), this.run);
    this.heard(reply);
    return this.finishLimited(status, reply.message.content || this.lastText);
  }

  /**
   * A final answer: the run ends `completed` (with its `output` when the run has an output
   * schema), or, when the answer does not match the schema, the model gets a repair turn (the loop
   * goes on: undefined) or, with no repairs left, the run ends `invalid_output`.
   */
  private async answered(answer: string): Promise<AgentLoopResult | undefined> {
    const verdict = await this.output.judge(answer);
    if (verdict.kind === 'repair') {
      this.transcript.add({ role: 'user', content: verdict.note });
      return undefined;
    }
    return this.finish(verdict.kind === 'accept' ? 'completed' : 'invalid_output', answer, verdict.fields);
  }

  /** A run a limit ended keeps its status; with an output schema, its answer's output is checked all the same. */
  private async finishLimited(status: RunStatus, answer: string): Promise<AgentLoopResult> {
    return this.finish(status, answer, await this.output.ofLimited(answer));
  }

  /** Runs the calls of one reply as a wave; its results join the transcript. Followers see each call as it settles. */
  private async runWave(iteration: number, calls: ToolCallMessagePart[]): Promise<WaveRecord> {
    const { tools, publisher } = this;
    const settled = publisher.waveStarted(iteration, calls, tools);
    let wave: WaveRecord;
    try {
      const { workflowId } = workflowInfo();
      const { progress } = this;
      const audit = this.reports.audited;
      const context = { iteration, tools, workflowId, gate: this.gate, run: this.run, progress, settled, audit };
      wave = { iteration, ...publisher.saidIn(iteration), calls: await runWave(calls, context) };
    } finally {
      publisher.waveSettled();
    }
    this.progress.waves.push(wave);
    this.transcript.addResults(this.planner.report(wave), ranOnWorker(wave.calls, tools));
    return wave;
  }

  /** A turn of the conversation is out (`message`): waits for the person's next message, which starts a turn. False when the conversation ended. */
  private async nextTurn(message: string): Promise<boolean> {
    this.progress.phase = 'waiting';
    const turn = await this.gate.converse(message, this.run.settings.idleTimeoutSeconds);
    if (turn.kind !== 'message') return false;
    this.transcript.add({ role: 'user', content: turn.text });
    this.limits.newTurn(this.progress.iteration);
    return true;
  }

  private request(iteration: number, overrides: Partial<ModelCallInput>): ModelCallInput {
    return modelRequest(this.run, this.transcript, iteration, overrides);
  }

  /** A handoff: once what the run told is settled, it goes on as the other agent (handoff.ts). */
  private async handOff(handoff: { to: string; callId: string }): Promise<never> {
    await this.reports.settle();
    return handOff(this.input, handoff, this.continuation(), this.transcript.messages);
  }

  private heard(reply: ModelCallOutput): void {
    this.transcript.heard(reply);
    this.publisher.replyAt = reply.at;
    this.spend(reply.usage);
  }

  private spend = (usage: Usage) => void (this.progress.usage = addUsage(this.progress.usage, usage));

  private finish(status: RunStatus, answer: string, output?: OutputFields): AgentLoopResult {
    return this.publisher.finish(status, answer, output);
  }

  /** What the next run of the chain starts from (its transcript is pruned at the hand-over). */
  private continuation(): Omit<Continuation, 'messages'> {
    const { waves, usage, iteration, forkedFrom } = this.progress;
    return {
      run: this.run,
      waves: clippedWaves(waves),
      usage,
      iteration,
      turnStart: this.limits.turnStart,
      lastText: this.lastText,
      lastCall: this.memory.lastCall,
      handOvers: this.handOvers + 1,
      startedAtMs: this.startedAtMs,
      outputRepairs: this.output.repairsUsed,
      forkedFrom,
      handoffs: this.progress.handoffs ?? [],
    };
  }
}
