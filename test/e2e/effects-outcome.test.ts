import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { WaveloopClient } from '../../src/client/waveloop-client';
import { defineTool, type AnyTool } from '../../src/tools/define';
import { Harness } from '../support/harness';

/**
 * The effect ledger says how a call whose attempt may have acted was settled
 * (docs/effects.md#unknown-outcomes): a `write` tool's first attempt pays, then outlives its
 * `timeoutSeconds`; its `reconcile` finds the payment, and the ledger lists the call once, with the
 * result `reconcile` gave and `outcome.path` `reconciled`.
 */

const payments = new Map<string, string>();
let attempts = 0;
const payInvoice = defineTool({
  name: 'pay_invoice',
  description: 'Pays an invoice.',
  effect: 'write',
  timeoutSeconds: 1,
  parameters: z.object({ number: z.string() }),
  execute: async ({ number }, { idempotencyKey }) => {
    attempts++;
    payments.set(idempotencyKey, number);
    // Paid, then slower than the attempt may take: its outcome is unknown.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    return `paid ${number}`;
  },
  reconcile: ({ number }, { idempotencyKey }) =>
    payments.get(idempotencyKey) === number ? `found the payment of ${number}` : undefined,
}) as unknown as AnyTool;

const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

describe('the effect ledger and unknown outcomes', () => {
  it('a write call that timed out after paying and was reconciled is listed once, with the result reconcile found and outcome reconciled', async () => {
    h.fake.script(
      { toolCalls: [{ id: 'call_pay', name: 'pay_invoice', args: { number: 'INV-9' } }] },
      { content: 'INV-9 is paid.' },
    );
    const { handle, result } = await h.run({ goal: 'Pay INV-9' }, { extraTools: [payInvoice] });
    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'INV-9 is paid.' });
    expect(attempts).toBe(1);

    const ledger = await new WaveloopClient(h.client, 'unused').effects(handle.workflowId);
    expect(ledger.effects).toEqual([
      {
        workflowId: handle.workflowId,
        iteration: 1,
        callId: 'call_pay',
        tool: 'pay_invoice',
        effect: 'write',
        undoable: false,
        args: { number: 'INV-9' },
        ok: true,
        result: 'found the payment of INV-9',
        outcome: expect.objectContaining({ path: 'reconciled', by: 'reconcile' }),
      },
    ]);
  });
});

describe('the effect ledger of a dry run', () => {
  it('is empty: the write call was held back, not run', async () => {
    h.fake.script(
      { toolCalls: [{ id: 'call_pay', name: 'pay_invoice', args: { number: 'INV-10' } }] },
      { content: 'I would have paid INV-10.' },
    );
    const before = attempts;
    const { handle, result } = await h.run({ goal: 'Pay INV-10', dryRun: true }, { extraTools: [payInvoice] });
    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed' });
    expect(attempts).toBe(before);
    expect(await new WaveloopClient(h.client, 'unused').effects(handle.workflowId)).toEqual({
      workflowId: handle.workflowId,
      kind: 'agent run',
      effects: [],
    });
  });
});
