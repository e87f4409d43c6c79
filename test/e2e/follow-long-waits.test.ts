import { getEventListeners } from 'node:events';
import {
  Client,
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ConnectionOptions,
} from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followUntilEnd } from '../../src/cli/follow-run';
import type { StopRequest } from '../../src/cli/stop-signals';
import { WaveloopClient } from '../../src/client/waveloop-client';
import { WAVELOOP_SEARCH_ATTRIBUTES } from '../../src/contract/search-attributes';
import { waveloopDataConverter } from '../../src/payloads/data-converter';
import { findTemporalBinary } from '../../src/server/temporal-cli';
import { dynamicConfigFlags, START_DEV_DYNAMIC_CONFIG_FLAGS } from '../../src/server/tuning';
import { Harness, waitForProgress } from '../support/harness';
import { eventually } from '../support/wait';

/**
 * Following a run that waits for a long time. While it follows, the CLI waits for the run's result
 * with a long poll of the run's history that the server answers empty every 20 s, and that is asked
 * again: thousands of times over days. This file's dev server (its own, not the run's shared one)
 * answers those long polls every half second, so a test sees many of them without waiting minutes.
 */
describe('following a run that waits', () => {
  let env: TestWorkflowEnvironment;
  let h: Harness;
  let worker: Worker;
  let running: Promise<void>;
  let taskQueue: string;

  beforeAll(async () => {
    env = await TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'existing-path', path: findTemporalBinary()! },
        searchAttributes: WAVELOOP_SEARCH_ATTRIBUTES,
        extraArgs: [
          ...START_DEV_DYNAMIC_CONFIG_FLAGS,
          ...dynamicConfigFlags({ 'history.longPollExpirationInterval': '500ms' }),
        ],
      },
    });
    h = await new Harness({ address: env.address }).start();
    ({ worker, taskQueue } = await h.worker());
    running = worker.run();
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await h?.stop();
    await env?.teardown();
  });

  /** A waveloop client whose connection counts its history long polls (GetWorkflowExecutionHistory calls). */
  const countingClient = async () => {
    const polls = { count: 0 };
    type Interceptor = NonNullable<ConnectionOptions['interceptors']>[number];
    const countPolls: Interceptor = (options, nextCall) => {
      if (options.method_definition.path.endsWith('/GetWorkflowExecutionHistory')) polls.count++;
      // The next call as it is (gRPC takes it; its type is narrower than the interface it has).
      return nextCall(options) as ReturnType<Interceptor>;
    };
    const connection = await Connection.connect({
      address: env.address,
      interceptors: [countPolls, makeGrpcRetryInterceptor(defaultGrpcRetryOptions())],
    });
    const client = new WaveloopClient(
      new Client({ connection, dataConverter: waveloopDataConverter(h.blobStore) }),
      taskQueue,
    );
    return { client, polls };
  };

  it('followUntilEnd (waveloop run, follow): through many long polls of the result, the stop signal keeps one listener and Node warns of no leak; the run ends with its result once approved', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const { client, polls } = await countingClient();
    try {
      h.fake.script({ toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] }, { content: 'It is 42.' });
      const { workflowId } = await client.runs.start({ goal: 'Compute 6*7', toolsToApprove: ['calculator'] });
      const waiting = await waitForProgress(
        h.client,
        h.client.workflow.getHandle(workflowId),
        (p) => p.pendingApprovals.length > 0,
      );

      // Never stopped by a signal here: the run ends.
      const stop: StopRequest = {
        stopped: new Promise<NodeJS.Signals>(() => undefined),
        signal: new AbortController().signal,
        dispose: () => undefined,
      };
      const lines: string[] = [];
      const ended = followUntilEnd(client, workflowId, stop, { line: (text) => lines.push(text) });
      await eventually(
        () => lines.join('\n'),
        (text) => text.includes(`waveloop approve ${workflowId} ${waiting.pendingApprovals[0].callId}`),
      );

      // Fifteen long polls of the result, each followed by how many listeners the stop signal has.
      const listeners: number[] = [];
      const first = polls.count;
      for (let n = 1; n <= 15; n++) {
        await eventually(
          () => polls.count,
          (count) => count >= first + n,
        );
        listeners.push(getEventListeners(stop.signal, 'abort').length);
      }
      expect(Math.max(...listeners)).toBeLessThanOrEqual(1);
      expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);

      await client.runs.approve(workflowId, waiting.pendingApprovals[0].callId);
      expect(await ended).toMatchObject({ result: { status: 'completed', answer: 'It is 42.' } });
      expect(getEventListeners(stop.signal, 'abort')).toEqual([]);
      h.fake.assertDone();
    } finally {
      process.off('warning', onWarning);
      await client.close();
    }
  });
});
