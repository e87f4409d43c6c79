import { describe, expect, it, vi } from 'vitest';
import * as planParser from '../../src/workflows/plan-parser';
import { plannerFor } from '../../src/workflows/planners';

const { parsePlan } = planParser;

// Workflow code loads the parser with `require` on first use (src/workflows/lazy.ts), which webpack
// resolves in the workflow bundle but Node cannot for a .ts file under vitest: hand it the same module.
// The JSON planner's workflow tests (json-planner.test.ts) go through the real loader.
vi.mock('../../src/workflows/lazy', () => ({ lazy: { planParser: () => planParser } }));

describe('parsePlan', () => {
  it('parsePlan: reads a plan inside a ```json fence', () => {
    const plan = parsePlan(
      'Here:\n```json\n{"status":"done","action":"a","tools":[],"reasoning":"r","answer":"42"}\n```',
    );
    expect(plan).toEqual({ ok: true, value: { status: 'done', action: 'a', tools: [], reasoning: 'r', answer: '42' } });
  });

  it('parsePlan: a <tool> block with broken JSON is an error that names the block', () => {
    const plan = parsePlan('<tool>{"tool_name": "a", "arguments": {}}</tool><tool>{"tool_name": </tool>');
    expect(plan.ok).toBe(false);
    expect(!plan.ok && plan.error).toMatch(/^<tool> block 2 is not valid JSON/);
  });

  it('parsePlan: a <tool> block without tool_name is refused', () => {
    const plan = parsePlan('<tool>{"name": "calculator"}</tool>');
    expect(!plan.ok && plan.error).toBe('<tool> block 1 needs {"tool_name": string, "arguments": object}.');
  });
});

describe('json planner', () => {
  const planner = plannerFor('json');

  it('json planner: missing and repeated call ids become unique ids', () => {
    const content = JSON.stringify({
      status: 'continue',
      action: 'x',
      reasoning: '',
      tools: [
        { id: 'a', tool: 't', args: {} },
        { id: 'a', tool: 't', args: { n: 1 } },
        { id: ' ', tool: 't', args: {} },
      ],
    });
    const step = planner.read({ role: 'assistant', content }, 4);
    expect(step.kind === 'wave' && step.calls.map((c) => c.id)).toEqual(['a', 'a-2', 'w4-3']);
  });

  it('json planner: "done" with tools runs them (the model answers after their results)', () => {
    const content = JSON.stringify({
      status: 'done',
      action: 'x',
      reasoning: '',
      tools: [{ id: 'a', tool: 't', args: {} }],
    });
    expect(planner.read({ role: 'assistant', content }, 1).kind).toBe('wave');
  });

  it('json planner: a prose reply is the answer once the model planned with <tool> blocks, in this run or before a hand-over', () => {
    const prose = { role: 'assistant' as const, content: 'Bob works at Acme.' };
    const tagged = {
      role: 'assistant' as const,
      content: 'Looking.\n<tool>{"tool_name": "search_users", "arguments": {"name": "Bob"}}</tool>',
    };

    expect(plannerFor('json').read(prose, 1).kind).toBe('retry');
    const inRun = plannerFor('json');
    expect(inRun.read(tagged, 1)).toMatchObject({ kind: 'wave', text: 'Looking.' });
    expect(inRun.read(prose, 2)).toEqual({ kind: 'answer', answer: 'Bob works at Acme.' });
    expect(plannerFor('json', { earlier: [{ role: 'user', content: 'x' }, tagged] }).read(prose, 9).kind).toBe(
      'answer',
    );
  });
});
