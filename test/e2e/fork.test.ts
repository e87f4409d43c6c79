import { randomBytes } from 'node:crypto';
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AGENT_LOOP_WORKFLOW, type AgentLoopInput, type AgentLoopResult } from '../../src/contract/agent-loop';
import { transcriptQuery } from '../../src/contract/messages';
import { CLAIM_CHECK_MIN_BYTES } from '../../src/payloads/claim-check';
import { readRunRecord } from '../../src/temporal/fork-history';
import { queryWithRetry } from '../../src/temporal/query';
import { defineTool } from '../../src/tools/define';
import { cliFixture, waveloop, type CliFixture } from '../support/cli';
import type { ChatRequest } from '../support/fake-model';
import { historyPayloads, recordHistory } from '../support/history';
import { eventually } from '../support/wait';

const { EventType } = temporal.api.enums.v1;

/** How many tool activities (`runTool`) a run's history shows scheduled. */
async function toolsRun(handle: WorkflowHandle): Promise<number> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).filter(
    (event) =>
      event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
      event.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool',
  ).length;
}

/** Every call of `record_step` that ran, in order: a tool's side effect. */
const steps: string[] = [];
const recordStep = defineTool({
  name: 'record_step',
  description: 'Records a step.',
  parameters: z.object({ step: z.string() }),
  execute: ({ step }) => {
    steps.push(step);
    return `recorded ${step}`;
  },
});

/** 45 KiB of random bytes as text (61,440 characters, under the tool result limit): compression cannot shrink it much. */
const noise = defineTool({
  name: 'noise_chunk',
  description: 'Returns 60 KB of random text.',
  parameters: z.object({ n: z.number() }),
  execute: ({ n }) => `${n}:${randomBytes(45 * 1024).toString('base64')}`,
});

describe('waveloop fork: a new run from any iteration of another', () => {
  let cli: CliFixture;
  let served: { worker: Worker; running: Promise<void> };

  beforeAll(async () => {
    // One worker serves the CLI's task queue, with a tool whose calls the test counts.
    cli = await cliFixture('fork', { worker: false });
    const { worker } = await cli.h.worker({ taskQueue: cli.taskQueue, extraTools: [recordStep, noise] });
    served = { worker, running: worker.run() };
    // The source: four iterations, each of the first three with a side effect.
    cli.fake.script(
      { toolCalls: [{ id: 'c1', name: 'record_step', args: { step: 'customer Initrode' } }] },
      { toolCalls: [{ id: 'c2', name: 'record_step', args: { step: 'invoice Initrode' } }] },
      { toolCalls: [{ id: 'c3', name: 'record_step', args: { step: 'mail Initrode' } }] },
      { content: 'Done: Initrode is the customer.' },
    );
    await cli.client.runs.start({ goal: 'Move user 2 to the customer' }, { workflowId: 'fork-source' });
    await cli.client.runs.result('fork-source');
  });
  afterAll(async () => {
    served?.worker.shutdown();
    await served?.running;
    await cli?.stop();
  });

  it('at iteration 2 of 4: the tools of iterations 1–2 do not run again, the model sees their results and the message, show and list say where it came from', async () => {
    expect(steps).toEqual(['customer Initrode', 'invoice Initrode', 'mail Initrode']);
    cli.fake.script(
      (request: ChatRequest) => {
        expect(request.messages.map((m) => m.role)).toEqual([
          'system',
          'user',
          'assistant',
          'tool',
          'assistant',
          'tool',
          'user',
        ]);
        expect(request.messages[1].content).toBe('Move user 2 to the customer');
        expect(request.messages[5].content).toBe('recorded invoice Initrode');
        expect(request.messages[6].content).toBe('The customer is Initech, not Initrode.');
        return { toolCalls: [{ id: 'c3', name: 'record_step', args: { step: 'mail Initech' } }] };
      },
      { content: 'Done: Initech is the customer.' },
    );
    const fork = await waveloop(
      [
        'fork',
        'fork-source',
        '--at',
        '2',
        '--message',
        'The customer is Initech, not Initrode.',
        '--id',
        'fork-1',
        '--json',
      ],
      cli.env,
    );
    expect(fork.code, fork.stderr).toBe(0);
    expect(JSON.parse(fork.stdout)).toMatchObject({
      workflowId: 'fork-1',
      status: 'completed',
      answer: 'Done: Initech is the customer.',
      iterations: 4,
      waves: [{ iteration: 3, calls: [{ tool: 'record_step', ok: true }] }],
    });
    // Only the fork's own iteration 3 ran a tool: one more effect, none repeated.
    expect(await toolsRun(cli.client.runs.handle('fork-1'))).toBe(1);
    await recordHistory('fork-1', cli.client.runs.handle('fork-1'));
    expect(steps).toEqual(['customer Initrode', 'invoice Initrode', 'mail Initrode', 'mail Initech']);

    const source = await cli.client.runs.handle('fork-source').describe();
    const forkedFrom = { workflowId: 'fork-source', runId: source.runId, iteration: 2 };
    const [show, description] = await Promise.all([
      waveloop(['show', 'fork-1'], cli.env),
      cli.client.runs.handle('fork-1').describe(),
    ]);
    expect(show.stdout).toContain(`Forked from fork-source at iteration 2 (run ${source.runId})`);
    expect(show.stdout).toContain(
      'Iterations: 3 to 4 (`waveloop fork fork-1 --at <n>` starts a new run after iteration n)',
    );
    expect(show.stdout).toMatch(
      /Waves \(wave n: iteration n's tool calls\):\n {2}wave 3 · record_step\(step=mail Initech\)/,
    );
    // The list reads the visibility store, which the server writes a moment after the run's events;
    // the other test files' runs on the shared server are listed too, so it reads past the newest 20.
    const listed = await eventually(
      async () =>
        (
          JSON.parse((await waveloop(['list', '--json', '--limit', '1000'], cli.env)).stdout) as Array<{
            workflowId: string;
            forkedFrom?: unknown;
          }>
        ).find((run) => run.workflowId === 'fork-1' && run.forkedFrom !== undefined),
      (run) => run !== undefined,
      { attempts: 50, intervalMs: 200 },
    );
    expect(listed?.forkedFrom).toEqual(forkedFrom);
    expect(description.memo?.forkedFrom).toEqual(forkedFrom);
    const metadata = await cli.client.runs
      .handle('fork-1')
      .query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toMatch(/Forked from `fork-source` at iteration 2/);
  });

  it('bad ids and iterations are refused: the CLI exits 2 saying why, a raw client’s run fails InvalidInput before any model call', async () => {
    const [unknown, beyond, zero] = await Promise.all([
      waveloop(['fork', 'no-such-run', '--at', '1'], cli.env),
      waveloop(['fork', 'fork-source', '--at', '9'], cli.env),
      waveloop(['fork', 'fork-source', '--at', '0'], cli.env),
    ]);
    expect(unknown).toMatchObject({ code: 2, stdout: '', stderr: 'There is no run no-such-run to fork.\n' });
    expect(beyond).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'Cannot fork run fork-source at iteration 9: its iterations are 1 to 4.\n',
    });
    expect(zero.code).toBe(2);

    const failure = async (input: AgentLoopInput) => {
      const handle = await cli.h.client.workflow.start(AGENT_LOOP_WORKFLOW, {
        taskQueue: cli.taskQueue,
        workflowId: `fork-bad-${Math.random()}`,
        args: [input],
      });
      const err = await handle.result().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkflowFailedError);
      return (err as WorkflowFailedError).cause as ApplicationFailure;
    };
    const [missing, outOfRange, invalid] = await Promise.all([
      failure({ goal: 'x', fork: { workflowId: 'no-such-run', iteration: 1 } }),
      failure({ goal: 'x', fork: { workflowId: 'fork-source', iteration: 5 } }),
      failure({ goal: 'x', fork: { workflowId: 'fork-source', iteration: 0 } }),
    ]);
    expect(missing).toMatchObject({ type: 'InvalidInput', message: 'There is no run no-such-run to fork.' });
    expect(outOfRange).toMatchObject({
      type: 'InvalidInput',
      message: 'Cannot fork run fork-source at iteration 5: its iterations are 1 to 4.',
    });
    expect(invalid).toMatchObject({ type: 'InvalidInput' });
    expect(invalid.message).toContain('fork.iteration must be at least 1');
    // The fake model has nothing scripted: a model call would have failed the test.
  });

  it('across a continue-as-new hand-over, behind the claim check: a raw client forks at an iteration of an earlier run of the chain', async () => {
    const client: Client = cli.h.client;
    let waves = 0;
    cli.fake.route(
      (request: ChatRequest) =>
        String(request.messages[0].content).startsWith('You compress')
          ? { content: 'Earlier: noise.' }
          : ++waves <= 4
            ? {
                toolCalls: [
                  { name: 'noise_chunk', args: { n: waves * 2 - 1 } },
                  { name: 'noise_chunk', args: { n: waves * 2 } },
                ],
              }
            : { content: 'Read it all.' },
      { atMost: 6 },
    );
    const start = (workflowId: string, input: AgentLoopInput) =>
      client.workflow.start(AGENT_LOOP_WORKFLOW, { taskQueue: cli.taskQueue, workflowId, args: [input] });
    const source = await start('fork-long', { goal: 'Read the noise', maxHistoryEvents: 50 });
    const ended = (await source.result()) as AgentLoopResult;
    expect(ended).toMatchObject({ status: 'completed', iterations: 5 });

    // The latest run of the chain starts after the iteration the earlier run handed over at.
    const latest = await readRunRecord(client, 'fork-long', (await source.describe()).runId);
    const at = latest.carriedIteration;
    expect(latest.continuedFrom).toBeDefined();
    expect(at).toBeGreaterThanOrEqual(3);
    const earlier = await queryWithRetry(
      client,
      client.workflow.getHandle('fork-long', latest.continuedFrom),
      transcriptQuery,
    );
    const results = earlier.filter((m) => m.role === 'tool').slice(0, at * 2);

    cli.fake.script((request: ChatRequest) => {
      const tools = request.messages.filter((m) => m.role === 'tool').map((m) => m.content);
      expect(tools).toEqual(results.map((m) => m.content));
      expect(request.messages.at(-1)).toMatchObject({ role: 'tool' });
      return { content: 'Forked and done.' };
    });
    const fork = await start('fork-long-1', {
      goal: 'Read the noise',
      fork: { workflowId: 'fork-long', iteration: at },
    });
    expect(await fork.result()).toMatchObject({ status: 'completed', answer: 'Forked and done.', iterations: at + 1 });
    expect((await fork.describe()).memo?.forkedFrom).toEqual({
      workflowId: 'fork-long',
      runId: latest.continuedFrom,
      iteration: at,
    });
    // The carried transcript is past the claim check's threshold: the fork's history holds a reference, not the text.
    const history = await fork.fetchHistory();
    const payloads = historyPayloads(history);
    expect(Math.max(...payloads.map((p) => p.data.length))).toBeLessThanOrEqual(CLAIM_CHECK_MIN_BYTES);
    expect(
      payloads.some((p) =>
        Buffer.from(p.metadata.encoding ?? [])
          .toString()
          .includes('claim-check'),
      ),
    ).toBe(true);
    expect(await toolsRun(fork)).toBe(0);
  });
});
