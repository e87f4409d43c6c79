import { setCurrentDetails, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { ResolvedRun } from '../contract/activity-io';
import { SEARCH_ATTRIBUTE_REFRESH_MS } from '../contract/activity-options';
import type {
  AgentLoopResult,
  RunProgress,
  RunStatus,
  ToolCallMessagePart,
  ToolCallRecord,
  WaveRecord,
} from '../contract/agent-loop';
import { statusQuery } from '../contract/messages';
import { ZERO_USAGE } from '../contract/model/usage';
import { UNKNOWN_PERSON } from '../contract/people/approvals';
import { WAVELOOP_ITERATION, WAVELOOP_STATUS, WAVELOOP_TOKENS } from '../contract/search-attributes';
import type { StartingState } from './continuation';
import { runDetails } from './run-details';

/**
 * What the world sees of a run while it goes: the `status` query (answered from the first moment,
 * so even a run that fails on its input answers it, and after the run ended), the run's current
 * details (what it waits for and the command that gives it, else where it is: `runDetails`) and,
 * when the namespace has them, the run's search attributes.
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
    setHandler(statusQuery, () => this.progress);
    this.describe();
  }

  /** A wave of `calls` starts: followers see each call as it settles (the callback it returns). */
  waveStarted(iteration: number, calls: readonly ToolCallMessagePart[]): (record: ToolCallRecord) => void {
    const settling: WaveRecord = { iteration, calls: [] };
    Object.assign(this.progress, { phase: 'tools', settling });
    this.wave = calls.map((call) => call.function.name);
    this.describe();
    return (record) => {
      settling.calls.push(record);
      this.describe();
    };
  }

  /** The wave ended (or was cancelled): its calls join `waves` (the loop adds the whole wave). */
  waveSettled(): void {
    delete this.progress.settling;
    this.wave = undefined;
  }

  /** The run's progress once it is resolved: its agent, model and limit, and what it starts from. */
  start(run: ResolvedRun, state: StartingState): RunProgress {
    this.searchAttributes = run.searchAttributes;
    this.progress.waves.push(...state.waves);
    return Object.assign(this.progress, {
      agent: run.agent,
      model: run.settings.model,
      maxIterations: run.settings.maxIterations,
      handOvers: state.handOvers,
      usage: state.usage,
      iteration: state.iteration,
      ...(run.modelQueue && { modelRateLimit: { ...run.modelQueue } }),
    });
  }

  /**
   * Sets the current details from the progress: call it whenever the phase, the wave or what the
   * run waits for changes. It records nothing in the history (the details are the workflow's state,
   * answered by the metadata query).
   */
  describe(): void {
    setCurrentDetails(runDetails({ progress: this.progress, workflowId: this.workflowId, wave: this.wave }));
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
    const { iteration, waves, usage } = this.progress;
    return { status, answer, iterations: iteration, waves, usage, ...output };
  }

  /** The run failed: the status query says so (the failure itself is the workflow's). */
  failed(): void {
    Object.assign(this.progress, { status: 'failed', phase: 'done' });
    this.describe();
  }
}
