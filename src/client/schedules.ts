import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleDescription,
  type ScheduleOptions,
  type ScheduleSpec,
} from '@temporalio/client';
import { AGENT_LOOP_WORKFLOW, AgentLoopInputSchema, type AgentLoopInput } from '../contract/agent-loop';
import { temporalPriority, withPriority, type PriorityFields } from '../contract/flow/priority';
import { PURSUE_GOAL_WORKFLOW } from '../contract/goal-tree/defaults';
import { GoalTreeInputSchema, type GoalTreeInput } from '../contract/goal-tree/pursue-goal';
import { describeIssues } from '../contract/issues';
import { formatDuration } from '../contract/settings/duration';
import { grpcErrorOf, GrpcStatus } from '../temporal/grpc-status';
import { GOAL_MEMO, PRIORITY_MEMO, STARTED_BY_MEMO } from './run-list';

/** What a schedule does when a run is due while the last one still runs (Temporal's overlap policies). */
export const OVERLAP_POLICIES = [
  'skip',
  'buffer-one',
  'buffer-all',
  'cancel-other',
  'terminate-other',
  'allow-all',
] as const;
export type Overlap = (typeof OVERLAP_POLICIES)[number];

/** When a schedule starts runs: a cron expression, or a fixed interval of `everySeconds`. */
export type ScheduleTiming = { cron: string; everySeconds?: undefined } | { everySeconds: number; cron?: undefined };

/** A recurring automation: an agent run (or a goal tree) started on a schedule. */
export interface ScheduleDefinition {
  /** The schedule's id, and the prefix of its runs' workflow ids. */
  name: string;
  timing: ScheduleTiming;
  /** IANA time zone of the cron expression (default UTC), e.g. Europe/Berlin. */
  timezone?: string;
  /** Default `skip`: a run that is due while the last one still runs (for example, waits for an approval) is not started. */
  overlap?: Overlap;
  paused?: boolean;
  /** What each run does: an agent run's input, or a goal tree's. */
  run: { kind: 'agent'; input: AgentLoopInput } | { kind: 'goal-tree'; input: GoalTreeInput };
}

/** A schedule as `schedule list` and `describe` show it. */
export interface ScheduleReport {
  name: string;
  kind: 'agent' | 'goal-tree';
  /** The goal of its runs (or trees), when known. */
  goal?: string;
  /** What each run does: the input it starts with, as the schedule holds it. */
  run: ScheduleDefinition['run'];
  timing: string;
  paused: boolean;
  note?: string;
  /** The runs it started last, newest last, with their statuses when described. */
  recentRuns: Array<{ workflowId: string; startedAt: Date; status?: string }>;
  nextTimes: Date[];
  overlap?: string;
}

/** Why a schedule was refused; the message says what to change. */
export class ScheduleError extends Error {
  override name = 'ScheduleError';
}

/**
 * Temporal Schedules for waveloop runs: each scheduled run is an ordinary `agentLoop` run (or
 * `pursueGoal` tree) on the task queue, validated before the schedule is made, with the schedule's
 * name in its memo (`schedule`) and in Temporal's `TemporalScheduledById` search attribute.
 */
export class WaveloopSchedules {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    /** Who its runs are started by, unless their input says: whoever made the schedule. */
    private readonly identity: string = client.options.identity,
  ) {}

  /** Validates the run's input and the timing, then creates the schedule. Throws `ScheduleError` (nothing is made) when either is wrong. */
  async create(definition: ScheduleDefinition): Promise<void> {
    const options = this.options(definition);
    try {
      await this.client.schedule.create(options);
    } catch (err) {
      throw refused(definition.name, err);
    }
  }

  /** Replaces what `update` names (timing, time zone, overlap, what runs), keeping the rest. */
  async update(name: string, change: Partial<Omit<ScheduleDefinition, 'name'>>): Promise<void> {
    const handle = this.client.schedule.getHandle(name);
    const current = await this.describeRaw(name);
    const merged: ScheduleDefinition = {
      name,
      timing: change.timing ?? timingOf(current),
      timezone: change.timezone ?? current.spec.timezone,
      overlap: change.overlap ?? overlapName(current.policies.overlap),
      run: change.run ?? runOf(current),
    };
    const options = this.options(merged);
    try {
      await handle.update((previous) => ({
        ...previous,
        spec: options.spec,
        action: options.action,
        policies: { ...previous.policies, overlap: options.policies!.overlap! },
      }));
    } catch (err) {
      throw refused(name, err);
    }
  }

  /**
   * Every schedule of agent runs and goal trees, by name. The names come from Temporal's visibility
   * store, which lists a schedule for a moment after it is deleted: one that is gone by the time it
   * is described is left out.
   */
  async list(): Promise<ScheduleReport[]> {
    const reports: ScheduleReport[] = [];
    for await (const summary of this.client.schedule.list()) {
      if (
        summary.action?.workflowType === AGENT_LOOP_WORKFLOW ||
        summary.action?.workflowType === PURSUE_GOAL_WORKFLOW
      ) {
        const description = await this.client.schedule
          .getHandle(summary.scheduleId)
          .describe()
          .catch((err: unknown) => {
            if (err instanceof ScheduleNotFoundError) return undefined;
            throw err;
          });
        if (description) reports.push(reportOf(description));
      }
    }
    return reports.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The schedule with its last runs and their current statuses, and its next times. */
  async describe(name: string): Promise<ScheduleReport> {
    const description = await this.describeRaw(name);
    const report = reportOf(description);
    report.overlap = overlapName(description.policies.overlap);
    for (const run of report.recentRuns) {
      run.status = await this.client.workflow
        .getHandle(run.workflowId)
        .describe()
        .then(
          (d) => d.status.name,
          () => undefined,
        );
    }
    return report;
  }

  async pause(name: string, note?: string): Promise<void> {
    await this.withHandle(name, (handle) => handle.pause(note));
  }

  async unpause(name: string, note?: string): Promise<void> {
    await this.withHandle(name, (handle) => handle.unpause(note));
  }

  /** Starts a run now, whatever the timing (the overlap policy still applies). */
  async trigger(name: string): Promise<void> {
    // Temporal's trigger allows any overlap unless told otherwise; the schedule's own policy applies here.
    await this.withHandle(name, async (handle) => handle.trigger((await handle.describe()).policies.overlap));
  }

  async delete(name: string): Promise<void> {
    await this.withHandle(name, (handle) => handle.delete());
  }

  private options(definition: ScheduleDefinition): ScheduleOptions {
    const { name, timing, run } = definition;
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/.test(name)) {
      throw new ScheduleError(
        `A schedule's name has letters, digits, ".", "_" and "-" (and starts with a letter or digit), not "${name}".`,
      );
    }
    const parsed = parseRunInput(run);
    const input = { ...parsed, startedBy: parsed.startedBy ?? this.identity };
    const spec: ScheduleSpec =
      timing.cron !== undefined
        ? { cronExpressions: [timing.cron] }
        : { intervals: [{ every: timing.everySeconds * 1000 }] };
    if (definition.timezone) spec.timezone = definition.timezone;
    const workflowType = run.kind === 'agent' ? AGENT_LOOP_WORKFLOW : PURSUE_GOAL_WORKFLOW;
    const goal = input.goal;
    // Each run starts with the input's priority fields as its Priority, as `runs.start` starts one.
    const priority = temporalPriority(input as PriorityFields);
    return {
      scheduleId: name,
      spec,
      action: {
        type: 'startWorkflow',
        workflowType,
        taskQueue: this.taskQueue,
        workflowId: name,
        args: [input],
        // Temporal keeps a cron expression only as calendar specs: the runs' memo keeps it as given.
        memo: {
          schedule: name,
          timing,
          [GOAL_MEMO]: goal,
          [STARTED_BY_MEMO]: input.startedBy,
          ...(priority ? { [PRIORITY_MEMO]: priority } : {}),
        },
        staticSummary: goal.length > 200 ? `${goal.slice(0, 199)}…` : goal,
        ...withPriority(priority),
      },
      policies: { overlap: overlapPolicy(definition.overlap ?? 'skip') },
      state: { paused: definition.paused ?? false },
    };
  }

  private async describeRaw(name: string): Promise<ScheduleDescription> {
    return this.withHandle(name, (handle) => handle.describe());
  }

  private async withHandle<T>(
    name: string,
    use: (handle: ReturnType<Client['schedule']['getHandle']>) => Promise<T>,
  ): Promise<T> {
    try {
      return await use(this.client.schedule.getHandle(name));
    } catch (err) {
      if (err instanceof ScheduleNotFoundError)
        throw new ScheduleError(`No schedule named "${name}" (\`waveloop schedule list\` shows them).`);
      throw err;
    }
  }
}

function parseRunInput(run: ScheduleDefinition['run']): AgentLoopInput | GoalTreeInput {
  const parsed =
    run.kind === 'agent' ? AgentLoopInputSchema.safeParse(run.input) : GoalTreeInputSchema.safeParse(run.input);
  if (parsed.success) return parsed.data;
  throw new ScheduleError(
    `Invalid ${run.kind === 'agent' ? 'run' : 'goal tree'} input: ${describeIssues(parsed.error.issues, 'input')}`,
  );
}

function overlapPolicy(overlap: Overlap): ScheduleOverlapPolicy {
  const policy = overlap.toUpperCase().replace(/-/g, '_') as keyof typeof ScheduleOverlapPolicy;
  if (!(OVERLAP_POLICIES as readonly string[]).includes(overlap))
    throw new ScheduleError(`Unknown overlap policy "${overlap}": use ${OVERLAP_POLICIES.join(', ')}.`);
  return ScheduleOverlapPolicy[policy];
}

function overlapName(policy: ScheduleOverlapPolicy | undefined): Overlap {
  return (policy ?? 'SKIP').toLowerCase().replace(/_/g, '-') as Overlap;
}

/** The server's refusal (a bad cron expression, a time zone it does not know, a name in use) as a `ScheduleError`. */
function refused(name: string, err: unknown): Error {
  if (err instanceof ScheduleError) return err;
  if (err instanceof ScheduleAlreadyRunning) return new ScheduleError(`A schedule named "${name}" exists already.`);
  // The SDK checks cron expressions itself (a TypeError); the server checks the rest.
  if (err instanceof TypeError) return new ScheduleError(`Schedule "${name}" refused: ${err.message}`);
  const grpc = grpcErrorOf(err);
  if (grpc?.code === GrpcStatus.INVALID_ARGUMENT)
    return new ScheduleError(`Schedule "${name}" refused: ${grpc.details || grpc.message}`);
  return err instanceof Error ? err : new Error(String(err));
}

function timingOf(schedule: ScheduleDescription): ScheduleTiming {
  const timing = schedule.action.memo?.timing as ScheduleTiming | undefined;
  if (timing && (typeof timing.cron === 'string' || typeof timing.everySeconds === 'number')) return timing;
  const every = schedule.spec.intervals?.[0]?.every;
  if (every !== undefined) return { everySeconds: Number(every) / 1000 };
  throw new ScheduleError(`Schedule "${schedule.scheduleId}" was not made by waveloop; give --cron or --every.`);
}

function runOf(description: ScheduleDescription): ScheduleDefinition['run'] {
  const [input] = description.action.args as [unknown];
  return description.action.workflowType === PURSUE_GOAL_WORKFLOW
    ? { kind: 'goal-tree', input: input as GoalTreeInput }
    : { kind: 'agent', input: input as AgentLoopInput };
}

function reportOf(schedule: ScheduleDescription): ScheduleReport {
  const timing = (() => {
    try {
      return timingOf(schedule);
    } catch {
      return undefined;
    }
  })();
  const goal = goalOf(schedule.action.args?.[0]);
  return {
    name: schedule.scheduleId,
    kind: schedule.action.workflowType === PURSUE_GOAL_WORKFLOW ? 'goal-tree' : 'agent',
    ...(goal ? { goal } : {}),
    run: runOf(schedule),
    timing: `${timing?.cron ?? (timing?.everySeconds !== undefined ? `every ${formatDuration(timing.everySeconds * 1000)}` : 'calendar')}${schedule.spec.timezone ? ` (${schedule.spec.timezone})` : ''}`,
    paused: schedule.state.paused,
    ...(schedule.state.note ? { note: schedule.state.note } : {}),
    recentRuns: schedule.info.recentActions.map((action) => ({
      workflowId: action.action.workflow.workflowId,
      startedAt: action.takenAt,
    })),
    nextTimes: schedule.info.nextActionTimes,
  };
}

function goalOf(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const record = input as { goal?: unknown; objective?: unknown };
  // A goal tree's schedule made before 1.0 names its goal `objective` (its trees are refused until it is updated).
  return typeof record.goal === 'string'
    ? record.goal
    : typeof record.objective === 'string'
      ? record.objective
      : undefined;
}
