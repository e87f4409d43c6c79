import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { WAVELOOP_SEARCH_ATTRIBUTES } from '../contract/search-attributes';
import { loadSettings, type WaveloopSettings } from '../settings';
import { connectClient } from '../temporal/connection';
import { readEffectLedger, type EffectLedger } from './effects';
import { EvalsClient } from './evals';
import { GoalsClient } from './goals';
import { hasLiveWorker } from './live-worker';
import { RunsClient } from './runs';
import { WaveloopSchedules } from './schedules';
import { undoRun, type UndoOptions, type UndoReport } from './undo';

/** Options of a `WaveloopClient`. */
export interface WaveloopClientOptions {
  /**
   * Who starts runs (their `startedBy`) and decides (`by`) through this client, unless a call names
   * someone else; default: the Temporal client's identity (`<user>@<host>`). An assertion, trusted
   * as far as the client's access to Temporal is (docs/security.md).
   */
  identity?: string;
}

/**
 * waveloop's client, shaped like Temporal's: `runs` (agent runs), `goals` (goal trees) and
 * `schedules`, over one Temporal client (`temporal`) and one task queue. The CLI uses it, and
 * scripts and services can too:
 *
 * ```ts
 * const client = await WaveloopClient.connect();
 * const handle = await client.runs.start({ goal: 'Find Bob and update his company to EPAM' });
 * const result = await client.runs.result(handle.workflowId);
 * await client.close();
 * ```
 */
export class WaveloopClient {
  /** Agent runs: start, follow, decide, cancel, list. */
  readonly runs: RunsClient;
  /** Goal trees: start, result, tree, events, cancel. */
  readonly goals: GoalsClient;
  /** Temporal Schedules that start runs and goal trees. */
  readonly schedules: WaveloopSchedules;
  /** Evals: run a dataset's cases and score them, make datasets from runs. */
  readonly evals: EvalsClient;
  /** Who asks through this client when a call names nobody (`WaveloopClientOptions.identity`). */
  private readonly identity: string;

  constructor(
    /** The Temporal client underneath, for anything waveloop's does not offer. */
    readonly temporal: Client,
    /** The task queue runs start on (`WAVELOOP_TASK_QUEUE`). */
    readonly taskQueue: string,
    { identity }: WaveloopClientOptions = {},
  ) {
    this.identity = identity ?? temporal.options.identity;
    this.runs = new RunsClient(temporal, taskQueue, identity);
    this.goals = new GoalsClient(temporal, taskQueue, identity);
    this.schedules = new WaveloopSchedules(temporal, taskQueue, identity);
    this.evals = new EvalsClient(temporal, taskQueue);
  }

  /** Connects to the Temporal service the settings name (default: read from the environment). */
  static async connect(
    settings: WaveloopSettings = loadSettings(),
    options: WaveloopClientOptions = {},
  ): Promise<WaveloopClient> {
    return new WaveloopClient(await connectClient(settings), settings.taskQueue, options);
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    await this.temporal.connection.close();
  }

  /**
   * Registers waveloop's search attributes on the namespace (`waveloop setup`); returns the ones it
   * added. Temporal Cloud manages them with its own tools (tcld / the Cloud UI) instead.
   */
  async setupSearchAttributes(): Promise<string[]> {
    const namespace = this.temporal.options.namespace;
    const operator = this.temporal.connection.operatorService;
    const { customAttributes } = await operator.listSearchAttributes({ namespace });
    const missing = WAVELOOP_SEARCH_ATTRIBUTES.filter((key) => customAttributes?.[key.name] === undefined);
    if (missing.length === 0) return [];
    const { IndexedValueType } = temporal.api.enums.v1;
    const typeOf = (key: (typeof missing)[number]) =>
      key.type === 'KEYWORD' ? IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD : IndexedValueType.INDEXED_VALUE_TYPE_INT;
    await operator.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((key) => [key.name, typeOf(key)])),
    });
    return missing.map((key) => key.name);
  }

  /**
   * What run `workflowId` changed outside itself (the effect ledger): every call of a tool whose
   * effect is not `read` that ran, with its arguments (sensitive values masked), its result or error
   * and who approved it; of a goal tree, its tool loops' calls. Read from the runs' results, status
   * queries and histories; docs/effects.md#the-effect-ledger.
   */
  async effects(workflowId: string): Promise<EffectLedger> {
    return readEffectLedger(this, workflowId);
  }

  /**
   * Undoes the calls of ended agent run `workflowId` that changed something, later calls first, each
   * by its tool's `undo`, in an `undoRun` workflow (`undo:<run>`), and waits until it has finished;
   * `dryRun` lists what it would undo. Calls an earlier undo reversed are never undone again. The
   * undo of a call that waited for approval waits for approval too (`onWaiting` is told of each;
   * `wait: false` answers once the undo has started).
   * Throws an `UndoRefusedError` for a run still running; docs/effects.md#undo.
   */
  async undo(workflowId: string, options: UndoOptions = {}): Promise<UndoReport> {
    return undoRun(this, workflowId, { ...options, by: options.by?.trim() || this.identity });
  }

  /**
   * Whether a worker polls `taskQueue` (default: this client's) for workflow tasks: the task queue's
   * pollers as the server lists them (DescribeTaskQueue), one of them seen within
   * `LIVE_POLLER_WINDOW_MS`. An idle worker keeps one long poll open for up to a minute, and the
   * server records a poll when it starts and when it ends, so a live worker's last access is at most
   * about a minute old. A worker that has stopped still counts until the window has passed (`run`
   * then starts its own once its run has waited a few seconds for a worker).
   */
  async hasLiveWorker(taskQueue = this.taskQueue): Promise<boolean> {
    return hasLiveWorker(this.temporal, taskQueue);
  }
}
