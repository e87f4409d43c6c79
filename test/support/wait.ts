/** A promise and the function that resolves it (to hold a scripted reply until a test has looked). */
export function gate(): { until: Promise<void>; open: () => void } {
  let open!: () => void;
  const until = new Promise<void>((resolve) => (open = resolve));
  return { until, open };
}

/** Reads `read()` every 100 ms until `predicate` holds for it (gives up after 20 s). */
export async function eventually<T>(read: () => T | Promise<T>, predicate: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (predicate(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('The expected state was never reached.');
}
