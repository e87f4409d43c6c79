import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerUpdate } from '../../src/contract/messages';
import { WAVELOOP_ITERATION, WAVELOOP_STATUS, WAVELOOP_TOKENS } from '../../src/contract/search-attributes';
import { Harness, waitForProgress } from '../support/harness';
import { eventually } from '../support/wait';

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
          // Visibility catches up with the run's search attributes shortly after they change.
          const listed = async () => {
            const ids: string[] = [];
            for await (const run of h.client.workflow.list({ query })) ids.push(run.workflowId);
            return ids;
          };
          found = await eventually(listed, (ids) => ids.length > 0, {
            attempts: 50,
            problem: 'The run was never listed as waiting for input.',
          });
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
