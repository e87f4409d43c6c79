import { setCurrentDetails, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { ResolvedRun, ToolInfo } from '../contract/activity-io';
import { SEARCH_ATTRIBUTE_REFRESH_MS } from '../contract/activity-options';
import type {
  AgentLoopResult,
  ChatMessage,
  RunProgress,
  RunStatus,
  SettlingWave,
  ToolCallMessagePart,
  ToolCallRecord,
  WaveRecord,
} from '../contract/agent-loop';
import { statusQuery } from '../contract/messages';
import { ZERO_USAGE } from '../contract/model/usage';
import { UNKNOWN_PERSON } from '../contract/people/approvals';
import { WAVELOOP_ITERATION, WAVELOOP_STATUS, WAVELOOP_TOKENS } from '../contract/search-attributes';
import { maskArgs, maskToolCalls } from '../contract/sensitive';
import type { StartingState } from './continuation';
import { heldBackOf, markDryRun } from './dry-run';
import { runDetails } from './run-details';

/**
 * What the world sees of a run while it goes: the `status` query (answered from the first moment,
 * so even a run that fails on its input answers it, and after the run ended), the run's current
 * details (what it waits for and the command that gives it, else where it is: `runDetails`) and,
 * when the namespace has them, the run's search attributes. All three, and the run's result, show
 * the arguments of a tool's `sensitive` parameters masked (`shown`); the progress itself keeps the
 * real ones, which the run goes on with.
 */
export class Publisher {
  readonly progress: RunProgress;
  /** Whether the namespace has waveloop's search attributes (`ResolvedRun.searchAttributes`). */
  searchAttributes = false;
  /** When the latest model reply arrived, as its activity recorded it (`ModelCallOutput.at`). */
  replyAt: number | undefined;
  /** The tools of the wave that runs, in call order; undefined between waves. */
  wave: string[] | undefined;
  private published = { values: '', status: '', at: 0 };
  /** The sensitive parameters of each of the run's tools that has some (`ToolInfo.sensitive`). */
  private sensitive = new Map<string, string[]>();
  private readonly workflowId = workflowInfo().workflowId;

  /** `startedBy`: who started the run (its input's), `unknown` when nobody said. */
  constructor(startedBy: unknown) {
    this.progress = {
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
      startedBy: typeof startedBy === 'string' && startedBy.trim() ? startedBy.trim() : UNKNOWN_PERSON,
      startedAt: workflowInfo().startTime.toISOString(),
    };
    setHandler(statusQuery, () => this.shown());
    this.describe();
  }

  /** A wave of `calls` starts: followers see each call as it settles (the callback it returns). */
  waveStarted(
    iteration: number,
    calls: readonly ToolCallMessagePart[],
    tools: ReadonlyMap<string, ToolInfo>,
  ): (record: ToolCallRecord) => void {
    // An agent call's child run is `<run>/<callId>` (agent-calls.ts).
    const open = calls.map(({ id, function: { name } }) => ({
      id,
      tool: name,
      ...(tools.get(name)?.agent ? { agentRun: `${this.workflowId}/${id}` } : {}),
    }));
    const settling: SettlingWave = { iteration, ...this.saidIn(iteration), calls: [], open };
    Object.assign(this.progress, { phase: 'tools', settling });
    this.wave = calls.map((call) => call.function.name);
    this.describe();
    return (record) => {
      settling.calls.push(record);
      settling.open = settling.open.filter((call) => call.id !== record.id);
      this.describe();
    };
  }

  /** What the model said with the tool calls of `iteration`, for its wave's record. */
  saidIn(iteration: number): Pick<WaveRecord, 'said'> {
    const { said } = this.progress;
    return said?.iteration === iteration ? { said: said.text } : {};
  }

  /** The wave ended (or was cancelled): its calls join `waves` (the loop adds the whole wave). */
  waveSettled(): void {
    delete this.progress.settling;
    this.wave = undefined;
  }

  /** The run's progress once it is resolved: its agent, model and limit, and what it starts from. */
  start(run: ResolvedRun, state: StartingState): RunProgress {
    this.searchAttributes = run.searchAttributes;
    this.sensitive = new Map(run.tools.flatMap((tool) => (tool.sensitive ? [[tool.name, tool.sensitive]] : [])));
    this.progress.waves.push(...state.waves);
    if (run.settings.dryRun) markDryRun(this.progress);
    return Object.assign(this.progress, {
      agent: run.agent,
      model: run.settings.model,
      maxIterations: run.settings.maxIterations,
      handOvers: state.handOvers,
      usage: state.usage,
      iteration: state.iteration,
      ...(state.handoffs.length ? { handoffs: state.handoffs } : {}),
      ...(run.modelQueue && { modelRateLimit: { ...run.modelQueue } }),
      ...(run.tree?.chain && { chain: run.tree.chain }),
    });
  }

  /**
   * Sets the current details from the progress: call it whenever the phase, the wave or what the
   * run waits for changes. It records nothing in the history (the details are the workflow's state,
   * answered by the metadata query).
   */
  describe(): void {
    setCurrentDetails(runDetails({ progress: this.shown(), workflowId: this.workflowId, wave: this.wave }));
  }

  /**
   * Sets the current details (`describe`) and keeps the search attributes current: the status at
   * once, the iteration and tokens within `SEARCH_ATTRIBUTE_REFRESH_MS` of the model replies'
   * recorded times (and exactly whenever the status changes). Every input of the decision is in
   * the history, so a replay decides alike.
   */
  publish(): void {
    this.describe();
    if (!this.searchAttributes) return;
    const { status, iteration, usage } = this.progress;
    const values = `${status}/${iteration}/${usage.totalTokens}`;
    if (values === this.published.values) return;
    const at = this.replyAt;
    if (status === this.published.status && at !== undefined && at - this.published.at < SEARCH_ATTRIBUTE_REFRESH_MS)
      return;
    this.published = { values, status, at: at ?? 0 };
    upsertSearchAttributes([
      { key: WAVELOOP_STATUS, value: status },
      { key: WAVELOOP_ITERATION, value: iteration },
      { key: WAVELOOP_TOKENS, value: usage.totalTokens },
    ]);
  }

  /** The run's result (with its `output` or `outputErrors`, when it has an output schema): the status query and search attributes show how it ended. */
  finish(
    status: RunStatus,
    answer: string,
    output: Pick<AgentLoopResult, 'output' | 'outputErrors'> = {},
  ): AgentLoopResult {
    Object.assign(this.progress, {
      status,
      phase: 'done',
      pendingQuestions: [],
      pendingApprovals: [],
      conversation: undefined,
    });
    this.publish();
    const { iteration, waves, usage, handoffs, chain } = this.progress;
    const shownWaves = waves.map(this.shownWave);
    const dryRun = heldBackOf({ dryRun: this.progress.dryRun, waves: shownWaves });
    const handedOff = handoffs ? { handoffs } : {};
    const called = chain ? { chain } : {};
    return {
      status,
      answer,
      iterations: iteration,
      waves: shownWaves,
      usage,
      ...output,
      ...dryRun,
      ...handedOff,
      ...called,
    };
  }

  /** The run failed: the status query says so (the failure itself is the workflow's). */
  failed(): void {
    Object.assign(this.progress, { status: 'failed', phase: 'done' });
    this.describe();
  }

  /** `messages` as people see them: the tool calls' sensitive arguments masked (the `transcript` query). */
  shownMessages(messages: readonly ChatMessage[]): ChatMessage[] {
    return maskToolCalls(messages, (tool) => this.sensitive.get(tool));
  }

  /** The progress as people see it: each call's sensitive arguments masked (waves, settling, approvals). */
  private shown(): RunProgress {
    if (!this.sensitive.size) return this.progress;
    const { waves, settling, pendingApprovals } = this.progress;
    return {
      ...this.progress,
      waves: waves.map(this.shownWave),
      ...(settling ? { settling: this.shownWave(settling) } : {}),
      pendingApprovals: pendingApprovals.map((call) => {
        const sensitive = this.sensitive.get(call.tool);
        return {
          ...call,
          args: maskArgs(call.args, sensitive),
          ...(call.originalArgs ? { originalArgs: maskArgs(call.originalArgs, sensitive) } : {}),
        };
      }),
    };
  }

  private readonly shownWave = <W extends WaveRecord>(wave: W): W => ({
    ...wave,
    calls: wave.calls.map((call) => {
      const sensitive = this.sensitive.get(call.tool);
      if (!sensitive) return call;
      const { approval } = call;
      return {
        ...call,
        args: maskArgs(call.args, sensitive),
        ...(approval?.originalArgs
          ? { approval: { ...approval, originalArgs: maskArgs(approval.originalArgs, sensitive) } }
          : {}),
      };
    }),
  });
}
