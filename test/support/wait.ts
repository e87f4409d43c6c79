/** A promise and the function that resolves it (to hold a scripted reply until a test has looked). */
export function gate(): { until: Promise<void>; open: () => void } {
  let open!: () => void;
  const until = new Promise<void>((resolve) => (open = resolve));
  return { until, open };
}

export interface EventuallyOptions {
  /** How many reads before giving up (default 200: 20 s at the default interval). */
  attempts?: number;
  /** Milliseconds between two reads (default 100). */
  intervalMs?: number;
  /** The error's message when the state is never reached (the last value read is added to it). */
  problem?: string;
}

/**
 * The one way tests wait for a state: reads `read()` every `intervalMs` until `predicate` holds for
 * it and returns that value; throws `problem`, with the last value read, after `attempts` reads.
 */
export async function eventually<T>(
  read: () => T | Promise<T>,
  predicate: (value: T) => boolean,
  { attempts = 200, intervalMs = 100, problem = 'The expected state was never reached.' }: EventuallyOptions = {},
): Promise<T> {
  let value!: T;
  for (let i = 0; i < attempts; i++) {
    if (i > 0) await sleep(intervalMs);
    value = await read();
    if (predicate(value)) return value;
  }
  throw new Error(`${problem}\nLast read: ${describe(value)}`);
}

/** The first match of `pattern` in `read()` (text printed so far), once there is one (30 s at most). */
export async function eventuallyMatches(
  read: () => string,
  pattern: RegExp,
  options: EventuallyOptions = {},
): Promise<RegExpExecArray> {
  const text = await eventually(read, (value) => pattern.test(value), {
    attempts: 300,
    problem: `Never printed ${pattern}.`,
    ...options,
  });
  return pattern.exec(text)!;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function describe(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 2_000 ? `…${text.slice(-2_000)}` : text;
}

/**
 * What `promise` resolves to, once it has (20 s at most, through `eventually`): for a process told
 * to stop, so one that does not fails the test instead of hanging it.
 */
export async function settled<T>(promise: Promise<T>, problem = 'It never ended.'): Promise<T> {
  let outcome: { value: T } | undefined;
  void promise.then((value) => (outcome = { value }));
  await eventually(
    () => outcome,
    (o) => o !== undefined,
    { problem },
  );
  return outcome!.value;
}
