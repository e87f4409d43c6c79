import * as os from 'node:os';

/**
 * How a long-running command learns that it should stop: Ctrl-C (SIGINT; typed at one of its prompts
 * too, which sends the process SIGINT) or SIGTERM (`kill`, `timeout`, a container stopping).
 * Temporal's runtime listens for both signals to shut its workers down, and a listener keeps Node
 * from ending the process itself: a command that does not listen for them would never end.
 */
export interface StopRequest {
  /** Resolves with the first SIGINT or SIGTERM after `listenForStop()`. */
  readonly stopped: Promise<NodeJS.Signals>;
  /** Aborted at the same moment, for calls that take an `AbortSignal`. */
  readonly signal: AbortSignal;
  /** Stops listening (the command has ended). */
  dispose(): void;
}

const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

/** Listens for SIGINT and SIGTERM until `dispose()`. */
export function listenForStop(): StopRequest {
  const controller = new AbortController();
  let resolve!: (signal: NodeJS.Signals) => void;
  const stopped = new Promise<NodeJS.Signals>((r) => (resolve = r));
  const onSignal = (signal: NodeJS.Signals) => {
    if (!controller.signal.aborted) controller.abort(new Error(`Stopped by ${signal}`));
    resolve(signal);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  return {
    stopped,
    signal: controller.signal,
    dispose: () => {
      for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
    },
  };
}

/** The exit status of a command that `signal` stopped, as a shell reports it: 130 for SIGINT, 143 for SIGTERM. */
export function exitStatusOf(signal: NodeJS.Signals): number {
  return 128 + os.constants.signals[signal];
}
