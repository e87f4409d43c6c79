import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, waitForProgress } from '../support/harness';
import { answerUpdate } from '../../src/common/messages';
import { WAVELOOP_ITERATION, WAVELOOP_STATUS, WAVELOOP_TOKENS } from '../../src/common/search-attributes';

const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

describe('agentLoop: search attributes', () => {
  it('search attributes: a run waiting for a person is found by WaveloopStatus; the end state is kept', async () => {
    h.fake.script({ toolCalls: [{ name: 'ask_question', args: { question: 'Go?' } }] }, { content: 'Went.' });
    let found: string[] = [];
    const { handle, result } = await h.run(
      { goal: 'Ask first' },
      {
        during: async (handle) => {
          await waitForProgress(h.client, handle, (p) => p.status === 'waiting_for_input');
          const query = `WaveloopStatus = 'waiting_for_input' AND WorkflowId = '${handle.workflowId}'`;
          for (let i = 0; i < 50 && found.length === 0; i++) {
            found = [];
            for await (const run of h.client.workflow.list({ query })) found.push(run.workflowId);
            if (found.length === 0) await new Promise((r) => setTimeout(r, 100));
          }
          await handle.executeUpdate(answerUpdate, { args: ['yes'] });
        },
      },
    );

    expect(result!.status).toBe('completed');
    expect(found).toEqual([handle.workflowId]);
    const attributes = (await handle.describe()).typedSearchAttributes;
    expect(attributes.get(WAVELOOP_STATUS)).toBe('completed');
    expect(attributes.get(WAVELOOP_ITERATION)).toBe(2);
    expect(attributes.get(WAVELOOP_TOKENS)).toBe(220);
  });
});
