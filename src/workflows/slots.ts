/**
 * A fixed number of slots for tasks that run at once (a wave's tool activities, a level's child
 * goals). Deterministic, as workflow code must be: no timers, no clock, only promises, so a task
 * waiting for a slot starts when an earlier one settles, in the order the tasks asked, and a worker
 * that replays the run decides the same.
 *
 * A task given a free slot starts synchronously, in the same turn as its caller: tasks up to the
 * width are scheduled together, in one workflow task, exactly as without slots. A settled task's slot
 * goes to the oldest waiting one; the workflow schedules it in the workflow task that learns of the
 * settlement.
 */
export class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(width: number) {
    this.free = Math.max(1, Math.floor(width));
  }

  /** Runs `task` in a slot: at once when one is free, else when one frees up. Its result is the task's. */
  run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free > 0) {
      this.free--;
      return this.hold(task);
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve)).then(() => this.hold(task));
  }

  /** Runs `task` in a slot already taken, giving the slot back when the task settles. */
  private hold<T>(task: () => Promise<T>): Promise<T> {
    let running: Promise<T>;
    try {
      running = task();
    } catch (err) {
      this.release();
      return Promise.reject(err);
    }
    void running.then(
      () => this.release(),
      () => this.release(),
    );
    return running;
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}
