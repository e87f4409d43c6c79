import { z } from 'zod';
import { defineTool } from '../../src/tools/define';

/**
 * The benchmarks' one tool, the same for every engine: sleeps `sleepMs` (0: returns at once) and
 * returns `bytes` characters (at least `ok`). Read-only, declared `localActivity: false` so each
 * call is an activity, as in the integration; `benchLocalTool` is the same tool as waveloop runs a
 * read by default.
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
  localActivity: false,
  async execute({ sleepMs, bytes }) {
    if (sleepMs > 0) await new Promise((resolve) => setTimeout(resolve, sleepMs));
    return bytes > 2 ? 'x'.repeat(bytes) : 'ok';
  },
});

/** The same tool as a read runs by default: a local activity, in the workflow's worker. */
export const benchLocalTool = defineTool({ ...benchTool, localActivity: undefined });
