/** A promise and the function that resolves it (to hold a scripted reply until a test has looked). */
export function gate(): { until: Promise<void>; open: () => void } {
  let open!: () => void;
  const until = new Promise<void>((resolve) => (open = resolve));
  return { until, open };
}

/** Reads `read()` every 100 ms until `predicate` holds for it (gives up after `attempts` reads, 20 s by default). */
export async function eventually<T>(
  read: () => T | Promise<T>,
  predicate: (value: T) => boolean,
  { attempts = 200, problem = 'The expected state was never reached.' } = {},
): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await read();
    if (predicate(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(problem);
}
