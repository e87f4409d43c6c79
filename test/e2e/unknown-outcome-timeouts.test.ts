import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { WaveloopClient } from '../../src/client/waveloop-client';
import { defineTool, ToolError } from '../../src/tools/define';
import { toolMessages } from '../support/fake-model';
import { Harness, waitForProgress } from '../support/harness';

/**
 * A `write` attempt that outlives its `timeoutSeconds` may have acted (docs/effects.md#unknown-outcomes):
 * a `reconcile` that finds nothing has the call run again; a `reconcile` that fails leaves the
 * decision to a person, and says why. The tools here hang on their first attempt until its signal
 * fires (a start-to-close timeout), in this process's worker.
 */
const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

/** A tool whose first attempt of each call hangs until cut off; later ones return. */
function hangingOnce(name: string, reconcile: (key: string) => string | undefined) {
  const attempts = new Map<string, number>();
  const reconciled: string[] = [];
  const tool = defineTool({
    name,
    description: 'Posts a transfer.',
    parameters: z.object({ amount: z.number() }),
    timeoutSeconds: 1,
    execute: async ({ amount }, { toolCallId, signal }) => {
      const n = (attempts.get(toolCallId) ?? 0) + 1;
      attempts.set(toolCallId, n);
      if (n === 1) await new Promise((resolve) => signal.addEventListener('abort', resolve));
      return `posted ${amount} (attempt ${n})`;
    },
    reconcile: (_args, { idempotencyKey }) => (reconciled.push(idempotencyKey), reconcile(idempotencyKey)),
  });
  return { tool, attempts, reconciled };
}

describe('unknown outcomes after a timeout', () => {
  it('reconcile finds nothing: the call runs again, and its record says reconcile had it rerun', async () => {
    const { tool, attempts, reconciled } = hangingOnce('post_transfer', () => undefined);
    h.fake.script({ toolCalls: [{ id: 'call_t', name: 'post_transfer', args: { amount: 70 } }] }, (request) => ({
      content: toolMessages(request)[0]!,
    }));
    const { handle, result } = await h.run({ goal: 'Post 70' }, { extraTools: [tool] });
    expect(result!.answer).toBe('posted 70 (attempt 2)');
    expect(attempts.get('call_t')).toBe(2);
    expect(reconciled).toEqual([`${handle.workflowId}/call_t`]);
    expect(result!.waves[0]!.calls[0]!.outcome).toMatchObject({
      path: 'rerun',
      by: 'reconcile',
      why: 'its attempt timed out after 1 s',
    });
  });

  it('reconcile fails: the call waits for a person, whose reason says why reconcile could not tell; "it happened" without a result completes it with a line saying who confirmed it', async () => {
    const { tool, attempts } = hangingOnce('post_refund', () => {
      throw new ToolError('the ledger cannot be read');
    });
    h.fake.script({ toolCalls: [{ id: 'call_r', name: 'post_refund', args: { amount: 12 } }] }, (request) => ({
      content: toolMessages(request)[0]!,
    }));
    const client = new WaveloopClient(h.client, 'unused');
    const { result } = await h.run(
      { goal: 'Refund 12' },
      {
        extraTools: [tool],
        during: async (handle) => {
          const waiting = await waitForProgress(h.client, handle, (p) => (p.pendingOutcomes ?? []).length > 0);
          expect(waiting.status).toBe('waiting_for_approval');
          expect(waiting.pendingOutcomes![0]).toMatchObject({
            callId: 'call_r',
            why: 'its attempt timed out after 1 s; its reconcile failed: the ledger cannot be read',
          });
          await expect(
            client.runs.settleOutcome(handle.workflowId, 'call_r', { choice: 'again', result: 'x', by: 'dana' }),
          ).rejects.toThrow();
          await client.runs.settleOutcome(handle.workflowId, 'call_r', { choice: 'happened', by: 'dana' });
        },
      },
    );
    expect(attempts.get('call_r')).toBe(1);
    expect(result!.answer).toBe('dana confirmed that post_refund ran; its result is not known.');
    expect(result!.waves[0]!.calls[0]!.outcome).toMatchObject({ path: 'confirmed', by: 'dana' });
  });
});
