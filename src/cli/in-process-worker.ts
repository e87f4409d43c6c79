import type { Worker } from '@temporalio/worker';
import type { LoadedProject } from '../project/load-project';
import type { WaveloopSettings } from '../settings';
import { createCliWorker } from './worker-runtime';

/**
 * The worker a command runs in its own process when no worker serves its task queue (`waveloop
 * run`): started at most once, on demand, and shut down gracefully when the command ends. A signal
 * (Ctrl-C, SIGTERM) has by then begun its shutdown already: Temporal's runtime listens for both.
 */
export class InProcessWorker {
  private running: { worker: Worker; close: () => Promise<void>; done: Promise<void> } | undefined;

  constructor(
    private readonly config: WaveloopSettings,
    private readonly project: LoadedProject,
    /** Called once it has started (to say so). */
    private readonly onStart: () => void,
  ) {}

  get started(): boolean {
    return this.running !== undefined;
  }

  async start(): Promise<void> {
    if (this.running) return;
    // A command ends promptly: calls in flight are cancelled at once (another worker retries them).
    const { worker, close } = await createCliWorker('run', this.config, this.project, { shutdownGraceTime: 0 });
    this.running = { worker, close, done: worker.run() };
    this.onStart();
  }

  /** Shuts it down, if it runs: waits for its tasks to end (activities are cancelled), then closes its connection and tools. */
  async stop(): Promise<void> {
    if (!this.running) return;
    const { worker, close, done } = this.running;
    if (worker.getState() === 'RUNNING') worker.shutdown();
    try {
      await done;
    } finally {
      await close();
    }
  }
}
