import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answerUpdate, approveUpdate, endUpdate } from '../../src/contract/messages';
import { defineTool } from '../../src/tools/define';
import { Harness, waitForProgress } from '../support/harness';
import { eventually, gate } from '../support/wait';

/**
 * A run's current details, as the Web UI and `temporal workflow metadata` show them, read through
 * the workflow metadata query: what it waits for and the command that gives it, else where it is.
 */
const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

/** The run's current details (the metadata query, as the Web UI asks it). */
async function currentDetails(handle: WorkflowHandle): Promise<string> {
  const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  return metadata.currentDetails ?? '';
}

/** Reads the current details until they contain every one of `parts`. */
function detailsShowing(handle: WorkflowHandle, ...parts: string[]): Promise<string> {
  return eventually(
    () => currentDetails(handle),
    (details) => parts.every((part) => details.includes(part)),
    {
      problem: `The current details never showed ${parts.join(' and ')}.`,
    },
  );
}

describe('agentLoop: current details', () => {
  it('a question: the details show it and the exact answer command', async () => {
    h.fake.script(
      { toolCalls: [{ name: 'ask_question', args: { question: 'Which company?' } }] },
      { content: 'Moving to EPAM.' },
    );
    const { result } = await h.run(
      { goal: 'Move Bob' },
      {
        during: async (handle) => {
          await waitForProgress(h.client, handle, (p) => p.pendingQuestions.length > 0);
          const details = await currentDetails(handle);
          expect(details).toContain('**Waiting for a person** · iteration 1 of 20');
          expect(details).toContain('Question: Which company?');
          expect(details).toContain(`\`waveloop answer ${handle.workflowId} "<your answer>"\``);
          await handle.executeUpdate(answerUpdate, { args: ['EPAM'] });
          // Once the run ended, its details say how (asked while the worker still runs).
          await handle.result();
          expect(await currentDetails(handle)).toBe('**Ended: completed** after 2 iterations');
        },
      },
    );
    h.fake.assertDone();
    expect(result!.status).toBe('completed');
  });

  it('approvals: each waiting call with its arguments and the approve and deny commands', async () => {
    h.fake.script(
      {
        toolCalls: [
          { name: 'update_user', args: { id: 1, company: 'Globex' }, id: 'call_a' },
          { name: 'update_user', args: { id: 2, company: 'Initech' }, id: 'call_b' },
        ],
      },
      { content: 'Both moved.' },
    );
    await h.run(
      { goal: 'Move users 1 and 2' },
      {
        during: async (handle) => {
          const id = handle.workflowId;
          await waitForProgress(h.client, handle, (p) => p.pendingApprovals.length === 2);
          const details = await currentDetails(handle);
          expect(details).toContain(
            'Approval needed: wave 1 · update_user() with arguments `{"id":1,"company":"Globex"}`',
          );
          expect(details).toContain(
            'Approval needed: wave 1 · update_user() with arguments `{"id":2,"company":"Initech"}`',
          );
          for (const call of ['call_a', 'call_b']) {
            expect(details).toContain(
              `Approve with \`waveloop approve ${id} ${call}\` or deny with \`waveloop deny ${id} ${call} --reason "…"\``,
            );
          }
          await handle.executeUpdate(approveUpdate, { args: ['call_a'] });
          const left = await eventually(
            () => currentDetails(handle),
            (d) => !d.includes('call_a'),
          );
          expect(left).toContain(`waveloop approve ${id} call_b`);
          await handle.executeUpdate(approveUpdate, { args: ['call_b'] });
        },
      },
    );
    h.fake.assertDone();
  });

  it('a running wave: the details show the iteration, the wave, its tools and how many calls settled', async () => {
    const held = gate();
    const slowLookup = defineTool({
      name: 'slow_lookup',
      description: 'Looks a key up, slowly.',
      parameters: z.object({ key: z.string() }),
      execute: async ({ key }) => (await held.until, `value of ${key}`),
    });
    h.fake.script(
      { toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] },
      {
        toolCalls: [
          { name: 'slow_lookup', args: { key: 'k' } },
          { name: 'calculator', args: { expression: '1+1' } },
        ],
      },
      { content: 'Done.' },
    );
    await h.run(
      { goal: 'Compute, then look k up' },
      {
        extraTools: [slowLookup],
        during: async (handle) => {
          await waitForProgress(h.client, handle, (p) => p.iteration === 2 && (p.settling?.calls.length ?? 0) === 1);
          expect(await currentDetails(handle)).toBe(
            '**Running** · iteration 2 of 20 · wave 2: slow_lookup, calculator (1 of 2 calls settled)',
          );
          held.open();
        },
      },
    );
    h.fake.assertDone();
  });

  it('a conversation: the details show what the agent said and the send and end commands', async () => {
    h.fake.script({ content: 'Hello! Ask me anything.' });
    await h.run(
      { goal: 'Chat', conversation: true },
      {
        during: async (handle) => {
          const id = handle.workflowId;
          const details = await detailsShowing(handle, 'The agent said: Hello! Ask me anything.');
          expect(details).toContain(
            `Reply with \`waveloop send ${id} "<your message>"\` or end with \`waveloop end ${id}\``,
          );
          await handle.executeUpdate(endUpdate);
        },
      },
    );
    h.fake.assertDone();
  });
});
