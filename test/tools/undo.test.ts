import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validateProjectConfig, type ReservedNames } from '../../src/project/validate-config';
import { defineTool } from '../../src/tools/define';

const reserved: ReservedNames = { builtinTools: ['task_complete'], demoTools: [], demoAgents: [] };

const payInvoice = {
  name: 'pay_invoice',
  description: 'Pays an invoice.',
  parameters: z.object({ invoice: z.string() }),
  execute: ({ invoice }: { invoice: string }) => `paid ${invoice}`,
  undo: ({ invoice }: { invoice: string }) => `refunded ${invoice}`,
};

const problemOf = (exported: unknown) => {
  const validated = validateProjectConfig(exported, reserved);
  return 'problem' in validated ? validated.problem : undefined;
};

describe('undo: a tool says how to reverse a call', () => {
  it('defineTool takes undo on a tool that changes something, and refuses it on a read tool, naming the tool', () => {
    expect(defineTool(payInvoice).undo).toBe(payInvoice.undo);
    expect(defineTool({ ...payInvoice, effect: 'idempotent' }).undo).toBe(payInvoice.undo);
    expect(() => defineTool({ ...payInvoice, effect: 'read' })).toThrow(
      'Tool "pay_invoice": a read tool changes nothing, so it has no undo.',
    );
  });

  it('the config refuses an undo on a read tool, or effects that make a tool with an undo read, naming the tool; undo must be a function', () => {
    expect(problemOf({ tools: [payInvoice] })).toBeUndefined();
    expect(problemOf({ tools: [{ ...payInvoice, effect: 'read' }] })).toBe(
      'tools.0.undo: tool "pay_invoice": a read tool has no undo',
    );
    expect(problemOf({ tools: [payInvoice], effects: { pay_invoice: 'read' } })).toBe(
      'effects makes the tool "pay_invoice" read, and a read tool has no undo',
    );
    expect(problemOf({ tools: [{ ...payInvoice, undo: 'refund' }] })).toMatch(/undo must be a function/);
  });
});
