// A waveloop worker process for the crash matrix (test/chaos). The test SIGKILLs it at random points
// and starts another. It runs the built code (dist/, `npm run test:chaos` builds it first): the demo
// tools, with `update_user` slowed down around its real, idempotent transaction, plus `chaos_step`,
// a test-only write tool that logs every execution, so the test can count how often each call really
// ran, and whose `reconcile` finds an execution that ended before a kill cut off its report.
//
// Environment: TEMPORAL_ADDRESS, CHAOS_TASK_QUEUE, OPENAI_BASE_URL, CHAOS_DATA_DIR (demo.db and
// tool-executions.log), CHAOS_BUNDLE (a workflow bundle file built once by the test), and
// optionally CHAOS_STEP_EFFECT (chaos_step's effect; default `write`).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { z } from 'zod';
import { defaultAgent } from '../../dist/src/agents/default.js';
import { createDemoTools, demoAgents, openDemoDatabase } from '../../dist/src/demo/index.js';
import { builtinTools, defineTool } from '../../dist/src/tools/index.js';
import { createModelClient, createWorker } from '../../dist/src/worker/index.js';

/** Attempts of the slowed tools time out after this long, so a call cut off by a kill is retried within seconds. */
const TOOL_TIMEOUT_SECONDS = 4;
/** A kill ends an attempt, and a run meets many kills: these tools allow more attempts than the default 3. */
const TOOL_RETRY = { maximumAttempts: 20, initialIntervalSeconds: 0.2 };

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const jitter = (min, max) => sleep(min + Math.random() * (max - min));

async function run() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const dataDir = env('CHAOS_DATA_DIR');
  const log = path.join(dataDir, 'tool-executions.log');
  const note = (line) => fs.appendFileSync(log, `${line}\n`);
  const db = openDemoDatabase(path.join(dataDir, 'demo.db'));
  const demo = createDemoTools({ db, now: () => new Date('2026-11-22T10:00:00Z') });
  const update = demo.find((tool) => tool.name === 'update_user');

  const slowUpdate = {
    ...update,
    timeoutSeconds: TOOL_TIMEOUT_SECONDS,
    retry: TOOL_RETRY,
    async execute(args, context) {
      note(`start ${process.pid} ${context.idempotencyKey}`);
      await jitter(0, 400);
      const user = await update.execute(args, context); // committed here: a kill after this must not apply it again
      note(`effect ${process.pid} ${context.idempotencyKey}`);
      await jitter(300, 800); // the test kills some workers here, after the commit and before the result is reported
      note(`end ${process.pid} ${context.idempotencyKey}`);
      return user;
    },
  };
  const chaosStep = defineTool({
    name: 'chaos_step',
    description: 'Test-only: one step of a chaos run; logs each execution.',
    parameters: z.object({ run: z.number().int(), step: z.number().int() }),
    timeoutSeconds: TOOL_TIMEOUT_SECONDS,
    retry: TOOL_RETRY,
    async execute({ run, step }, context) {
      note(`start ${process.pid} ${context.idempotencyKey}`);
      await jitter(100, 600);
      note(`end ${process.pid} ${context.idempotencyKey}`);
      return `step ${step} of run ${run} done`;
    },
    // A write tool (CHAOS_STEP_EFFECT says otherwise): an attempt cut off by a kill may have finished,
    // and its `reconcile` looks for the `end` line of the call in the log.
    effect: process.env.CHAOS_STEP_EFFECT ?? 'write',
    reconcile({ run, step }, context) {
      const lines = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n') : [];
      const ended = lines.some((line) => line.startsWith('end ') && line.endsWith(` ${context.idempotencyKey}`));
      return ended ? `step ${step} of run ${run} done` : undefined;
    },
  });

  const connection = await NativeConnection.connect({ address: env('TEMPORAL_ADDRESS') });
  const worker = await createWorker({
    connection,
    namespace: 'default',
    taskQueue: env('CHAOS_TASK_QUEUE'),
    tools: [...demo.map((tool) => (tool === update ? slowUpdate : tool)), ...builtinTools(), chaosStep],
    agents: [defaultAgent, ...demoAgents],
    openai: createModelClient({
      baseURL: env('OPENAI_BASE_URL'),
      apiKey: `chaos-key-${process.pid}`,
    }),
    defaults: { model: 'fake-model' },
    workflowBundle: { codePath: env('CHAOS_BUNDLE') },
  });
  process.stdout.write('ready\n');
  try {
    await worker.run();
  } finally {
    await connection.close();
    db.close();
  }
}

run().catch((err) => {
  console.error(err);
  process.exit(1);
});
