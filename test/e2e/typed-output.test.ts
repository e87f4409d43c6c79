import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defaultAgent } from '../../src/agents/default';
import { defineAgent, type AgentOutput } from '../../src/agents/define';
import type { AgentLoopResult } from '../../src/contract/agent-loop';
import { demoAgents } from '../../src/demo/agents';
import type { ScriptedReply } from '../support/fake-model';
import { achievement, assess, decomposition, goalModel, synthesis } from '../support/goal-model';
import { Harness } from '../support/harness';
import { recordHistory } from '../support/history';

const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

/** An invoice total, as a back-office automation hands it to an ERP. */
const INVOICE = {
  type: 'object',
  properties: { amount: { type: 'number' }, currency: { enum: ['EUR', 'USD'] } },
  required: ['amount', 'currency'],
  additionalProperties: false,
};
const GOAL = 'What is the total of invoice 7?';

/** The repair turns the model got: user messages that say the answer does not match the schema. */
function repairTurns(messages: ReadonlyArray<{ role: string; content?: string | null }>): string[] {
  return messages
    .filter((m) => m.role === 'user' && String(m.content).startsWith('Your final answer does not match'))
    .map((m) => String(m.content));
}

/** A JSON planner's final plan. */
const done = (answer: unknown): ScriptedReply => ({
  content: JSON.stringify({ status: 'done', action: 'answer', tools: [], reasoning: 'found it', answer }),
});

describe('typed output: the final answer matches the run’s JSON Schema', () => {
  it('an answer that does not match goes back to the model once; the repaired answer is the output', async () => {
    h.fake.script(
      { content: 'The total is {"amount": "12.50", "currency": "EUR"} as far as I can tell.' },
      { content: '```json\n{"amount": 12.5, "currency": "EUR"}\n```' },
    );
    const { handle, result, transcript } = await h.run({ goal: GOAL, tools: ['calculator'], output: INVOICE });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', iterations: 2, output: { amount: 12.5, currency: 'EUR' } });
    expect(result!.answer).toContain('"amount": 12.5');
    expect(result!.outputErrors).toBeUndefined();
    // The model was told the shape, and got exactly one repair turn saying what was wrong.
    expect(String(h.fake.requests[0].messages[0].content)).toContain(JSON.stringify(INVOICE));
    const repairs = repairTurns(transcript);
    expect(repairs).toHaveLength(1);
    expect(repairs[0]).toContain('output.amount: expected number, got string');
    expect(h.fake.requests[1].messages.at(-1)).toMatchObject({ role: 'user', content: repairs[0] });
    await recordHistory('typed-output-repair', handle);
  });

  it('answers that never match end the run invalid_output, with the last raw answer and what is wrong', async () => {
    h.fake.script({ content: 'About twelve euros.' }, { content: '{"amount": 12.5, "currency": "GBP", "vat": 2}' });
    const { result, progress, transcript } = await h.run({
      goal: GOAL,
      tools: ['calculator'],
      output: INVOICE,
      outputRepairs: 1,
    });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'invalid_output', answer: '{"amount": 12.5, "currency": "GBP", "vat": 2}' });
    expect(result!.output).toBeUndefined();
    expect(result!.outputErrors).toEqual(['output.vat: not allowed', 'output.currency: expected one of "EUR", "USD"']);
    expect(progress.status).toBe('invalid_output');
    expect(repairTurns(transcript)).toEqual([expect.stringContaining('output: the final answer is not JSON')]);
  });

  it('repairs count across hand-overs: the chain of runs gets outputRepairs in all, then ends invalid_output', async () => {
    const agent: ScriptedReply[] = [
      { content: 'About twelve euros.' },
      ...Array.from({ length: 6 }, (_, i) => ({
        toolCalls: [{ name: 'calculator', args: { expression: `${i} + 1` } }],
      })),
      { content: '{"amount": "twelve", "currency": "EUR"}' },
      { content: '{"amount": 12.5, "currency": "GBP"}' },
    ];
    h.fake.route(
      (request) => {
        if (String(request.messages[0]!.content).startsWith('You compress')) return { content: 'Earlier: sums.' };
        const next = agent.shift();
        if (!next) throw new Error('a repair turn more than outputRepairs allows');
        return next;
      },
      { atMost: 20 },
    );
    const { result, progress } = await h.run({
      goal: GOAL,
      tools: ['calculator'],
      output: INVOICE,
      outputRepairs: 2,
      maxHistoryEvents: 50,
    });

    expect(agent).toHaveLength(0);
    expect(progress.handOvers).toBeGreaterThanOrEqual(1);
    expect(result).toMatchObject({ status: 'invalid_output', answer: '{"amount": 12.5, "currency": "GBP"}' });
    expect(result!.outputErrors).toEqual(['output.currency: expected one of "EUR", "USD"']);
  });

  it('task_complete with an object result that matches: the object is the output', async () => {
    h.fake.script({
      toolCalls: [{ name: 'task_complete', args: { result: { amount: 99, currency: 'USD' } } }],
    });
    const { result } = await h.run({ goal: GOAL, tools: ['task_complete'], output: INVOICE });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', output: { amount: 99, currency: 'USD' } });
    expect(JSON.parse(result!.answer)).toEqual({ amount: 99, currency: 'USD' });
  });

  it('the JSON planner: an answer object that does not match is repaired, then the run ends invalid_output', async () => {
    h.fake.script(done({ amount: 'twelve', currency: 'EUR' }), done('{"amount": 12.5}'));
    const { result, transcript } = await h.run({
      goal: GOAL,
      tools: ['calculator'],
      planner: 'json',
      output: INVOICE,
      outputRepairs: 1,
    });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'invalid_output', answer: '{"amount": 12.5}' });
    expect(result!.outputErrors).toEqual(['output.currency: missing']);
    expect(repairTurns(transcript)).toEqual([expect.stringContaining('output.amount: expected number, got string')]);
    expect(String(h.fake.requests[0].messages[0].content)).toContain('as the "answer" of your final plan');
  });

  it('tool calls written as text: task_complete with a bad object, twice, ends invalid_output', async () => {
    const call = (result: unknown) => ({
      content: `<tool_call>\n${JSON.stringify({ name: 'task_complete', arguments: { result } })}\n</tool_call>`,
    });
    h.fake.script(call({ amount: 12.5 }), call({ amount: 12.5, currency: 'eur' }));
    const { result, transcript } = await h.run({
      goal: GOAL,
      tools: ['task_complete'],
      output: INVOICE,
      outputRepairs: 1,
    });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'invalid_output', answer: '{"amount":12.5,"currency":"eur"}' });
    expect(result!.outputErrors).toEqual(['output.currency: expected one of "EUR", "USD"']);
    expect(result!.waves.map((wave) => wave.calls.map((c) => [c.tool, c.ok]))).toEqual([
      [['task_complete', true]],
      [['task_complete', true]],
    ]);
    expect(repairTurns(transcript)).toEqual([expect.stringContaining('output.currency: missing')]);
  });

  it('a run its iteration limit stops keeps max_iterations, with the output its last text has', async () => {
    h.fake.script({
      content: '{"amount": 391, "currency": "EUR"}',
      toolCalls: [{ name: 'calculator', args: { expression: '17*23' } }],
    });
    const { result } = await h.run({ goal: GOAL, tools: ['calculator'], output: INVOICE, maxIterations: 1 });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'max_iterations', output: { amount: 391, currency: 'EUR' } });
  });

  it("an agent's zod output: the run's result has its shape, typed", async () => {
    const invoices = defineAgent({
      name: 'invoices',
      system: 'You read invoices.',
      tools: ['calculator'],
      output: z.object({ amount: z.number(), currency: z.enum(['EUR', 'USD']) }),
    });
    h.fake.script({ content: '{"amount": 7, "currency": "EUR"}' });
    const { result } = await h.run(
      { goal: GOAL, agent: 'invoices' },
      { agents: [defaultAgent, ...demoAgents, invoices] },
    );

    h.fake.assertDone();
    const typed = result as AgentLoopResult<AgentOutput<typeof invoices>>;
    expectTypeOf(typed.output).toEqualTypeOf<{ amount: number; currency: 'EUR' | 'USD' } | undefined>();
    expect(typed).toMatchObject({ status: 'completed', output: { amount: 7, currency: 'EUR' } });
    expect(String(h.fake.requests[0].messages[0].content)).toContain(
      '"currency":{"type":"string","enum":["EUR","USD"]}',
    );
  });

  it('a goal tree with an output schema: the root synthesizes, then its result is written in that shape (repaired once)', async () => {
    const [OBJECTIVE, LINES, TAX] = ['Total invoice 7 with tax', 'Sum the invoice lines', 'Find the tax rate'];
    const router = goalModel({
      [OBJECTIVE]: {
        assessment: [assess.decompose()],
        decomposition: [decomposition(LINES, TAX)],
        achievement: [achievement(true)],
        synthesis: [synthesis('Invoice 7 totals 121 EUR with tax.', ['lines 100 EUR', 'tax 21 %'])],
        output: [{ content: '{"amount": "121 EUR"}' }, { content: '{"amount": 121, "currency": "EUR"}' }],
      },
      [LINES]: { assessment: [assess.answer()], synthesis: [synthesis('The lines sum to 100 EUR.')] },
      [TAX]: { assessment: [assess.answer()], synthesis: [synthesis('The tax rate is 21 %.')] },
    });
    h.fake.script(...router.steps);
    const { result, error } = await h.pursue({ goal: OBJECTIVE, tools: [], output: INVOICE });

    expect(error).toBeUndefined();
    router.assertDone();
    expect(result).toMatchObject({
      status: 'achieved',
      report: { summary: 'Invoice 7 totals 121 EUR with tax.' },
      output: { amount: 121, currency: 'EUR' },
    });
    expect(result!.outputErrors).toBeUndefined();
    const [first, second] = router.requests(OBJECTIVE, 'output');
    expect(first.response_format?.json_schema?.schema).toEqual(INVOICE);
    expect(String(first.messages.at(-1)!.content)).toContain('Invoice 7 totals 121 EUR with tax.');
    expect(second.messages.at(-1)).toMatchObject({
      role: 'user',
      content: expect.stringContaining('output.amount: expected number, got string'),
    });
  });

  it('an output schema ajv cannot compile fails the run at once (InvalidInput), before any model call', async () => {
    h.fake.script();
    const { error } = await h.run({ goal: GOAL, output: { type: 'invoice' } });

    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause).toMatchObject({ type: 'InvalidInput', nonRetryable: true });
    expect(cause.message).toMatch(/output: the output schema is not a valid JSON Schema/);
    expect(h.fake.requests).toHaveLength(0);
  });
});
