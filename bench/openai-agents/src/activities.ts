/**
 * The bench tool as an activity, as Temporal's integration runs tools that do I/O: the same
 * behaviour as waveloop's `bench_tool` (sleeps `sleepMs`, returns `bytes` characters).
 */
export async function bench_tool({ sleepMs, bytes }: { sleepMs: number; bytes: number }): Promise<string> {
  if (sleepMs > 0) await new Promise((resolve) => setTimeout(resolve, sleepMs));
  return bytes > 2 ? 'x'.repeat(bytes) : 'ok';
}
