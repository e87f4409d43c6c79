import { z } from 'zod';
import { defineTool } from '../../src/tools/define';

/**
 * The benchmarks' one tool, the same for every engine: sleeps `sleepMs` (0: returns at once) and
 * returns `bytes` characters (at least `ok`). Read-only, so it may run as a local activity.
 */
export const benchTool = defineTool({
  name: 'bench_tool',
  description: 'A benchmark tool: waits sleepMs milliseconds and returns bytes characters.',
  parameters: z.object({
    sleepMs: z.number().int().min(0),
    bytes: z.number().int().min(0),
    call: z.number().int().optional(),
  }),
  effect: 'read',
  async execute({ sleepMs, bytes }) {
    if (sleepMs > 0) await new Promise((resolve) => setTimeout(resolve, sleepMs));
    return bytes > 2 ? 'x'.repeat(bytes) : 'ok';
  },
});

/** The same tool declared `localActivity: true`: the loop runs it in the workflow's worker, as a local activity. */
export const benchLocalTool = defineTool({ ...benchTool, localActivity: true });
