import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { defineTool } from '../../src/tools/define';
import { createWorker } from '../../src/worker/create-worker';

const tool = { name: 'lookup', description: 'Looks a thing up.', parameters: z.object({}), execute: () => 'ok' };

describe('definitions: an old name is refused with its new name, at definition time', () => {
  it('defineTool: timeoutMs and retry intervals in milliseconds', () => {
    expect(() => defineTool({ ...tool, timeoutMs: 5_000 } as never)).toThrow(
      'Tool "lookup": `timeoutMs` is now `timeoutSeconds`.',
    );
    expect(() => defineTool({ ...tool, retry: { initialIntervalMs: 100 } } as never)).toThrow(
      'Tool "lookup": retry: `initialIntervalMs` is now `initialIntervalSeconds`.',
    );
    expect(defineTool({ ...tool, timeoutSeconds: 5, retry: { initialIntervalSeconds: 0.1 } }).timeoutSeconds).toBe(5);
  });

  it('defineAgent: a limits group, and a setting out of bounds', () => {
    expect(() => defineAgent({ name: 'clerk', system: 's', limits: { maxIterations: 3 } } as never)).toThrow(
      /^Agent "clerk": limits: `limits` is now the same fields at the top level of the agent/,
    );
    expect(() => defineAgent({ name: 'clerk', system: 's', maxIterations: 0 })).toThrow(
      'Agent "clerk": maxIterations: maxIterations must be a whole number from 1 to 10,000.',
    );
    expect(defineAgent({ name: 'clerk', system: 's', maxIterations: 3 }).maxIterations).toBe(3);
  });

  it("createWorker: the worker's settings of its runs are `defaults`; nothing connects", async () => {
    await expect(
      createWorker({ defaultModel: 'm', webhooks: { urls: ['https://x.example'] } } as never),
    ).rejects.toThrow(
      'createWorker: `defaultModel` is now `defaults.model`; webhooks: `urls` is now `defaults.webhooks`.',
    );
  });
});
