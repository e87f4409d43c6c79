import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { WaveloopClient } from '../../src/client/waveloop-client';
import { defineTool, type AnyTool } from '../../src/tools/define';
import { achievement, assess, decomposition, goalModel, synthesis, type GoalScript } from '../support/goal-model';
import { Harness } from '../support/harness';

/**
 * The effect ledger of a goal tree (docs/effects.md#the-effect-ledger): the calls of its goals' tool
 * loops that are not `read`, each with the tool loop that made it, read from the tree's histories
 * as `waveloop tree` reads them.
 */

const CARD = '4111111111111111';
const paid: string[] = [];
const payInvoice = defineTool({
  name: 'pay_invoice',
  description: 'Pays an invoice with a card.',
  effect: 'write',
  sensitive: ['card'],
  parameters: z.object({ number: z.string(), card: z.string() }),
  execute: ({ number, card }) => {
    paid.push(`${number} ${card}`);
    return `paid ${number}`;
  },
}) as unknown as AnyTool;

const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

describe('the effect ledger of a goal tree', () => {
  it("lists its tool loops' calls that are not read, each with its run, the card masked; not the reads, not the tree's own model calls", async () => {
    const ROOT = 'Settle the two overdue invoices';
    const [ONE, TWO] = ['Pay INV-1', 'Look up INV-2'];
    const router = goalModel({
      [ROOT]: {
        assessment: [assess.decompose()],
        decomposition: [decomposition(ONE, TWO)],
        achievement: [achievement(true)],
        synthesis: [synthesis('INV-1 paid; INV-2 looked up.')],
      },
      [ONE]: {
        assessment: [assess.tools()],
        agent: [
          { toolCalls: [{ id: 'call_pay', name: 'pay_invoice', args: { number: 'INV-1', card: CARD } }] },
          { content: 'Paid INV-1.' },
        ],
      },
      [TWO]: {
        assessment: [assess.tools()],
        agent: [
          { toolCalls: [{ id: 'call_calc', name: 'calculator', args: { expression: '2+2' } }] },
          { content: 'Looked.' },
        ],
      },
    } satisfies GoalScript);
    h.fake.script(...router.steps);

    const { handle, result } = await h.pursue({ goal: ROOT }, { extraTools: [payInvoice] });
    h.fake.assertDone();
    router.assertDone();
    expect(result?.status).toBe('achieved');
    expect(paid).toEqual([`INV-1 ${CARD}`]);

    const client = new WaveloopClient(h.client, 'unused');
    const ledger = await client.effects(handle.workflowId);
    const tree = await client.goals.tree(handle.workflowId);
    const payer = tree.children.find((child) => child.goal === ONE)!.toolLoop!.workflowId;
    expect(ledger).toEqual({
      workflowId: handle.workflowId,
      kind: 'goal tree',
      effects: [
        {
          workflowId: payer,
          iteration: 1,
          callId: 'call_pay',
          tool: 'pay_invoice',
          effect: 'write',
          undoable: false,
          args: { number: 'INV-1', card: '•••• 1111' },
          ok: true,
          result: 'paid INV-1',
        },
      ],
    });
    // The tool loop's own ledger is the same call.
    expect((await client.effects(payer)).effects).toEqual(ledger.effects);
  });
});
