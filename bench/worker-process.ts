import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { defineAgent } from '../src/agents/define';
import { blobStoreIn } from '../src/payloads/blob-store';
import { createModelClient, createWorker } from '../src/worker';
import { benchTool } from './support/bench-tool';

/**
 * A waveloop worker in a process of its own, for the recovery scenario (the runner kills it):
 * `node worker-process.js <address> <model base URL> <task queue> <workflow bundle file> <data dir>
 * [<model calls a minute>]` (the last: `WAVELOOP_MODEL_RPM`, for the shared model limit scenario).
 * Prints `ready` once it polls.
 */
async function run(): Promise<void> {
  const [address, baseURL, taskQueue, codePath, dataDir, modelRpm] = process.argv.slice(2);
  if (!address || !baseURL || !taskQueue || !codePath || !dataDir)
    throw new Error('usage: worker-process <address> <baseURL> <taskQueue> <bundle> <dataDir>');
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const connection = await NativeConnection.connect({ address });
  try {
    const worker = await createWorker({
      connection,
      namespace: 'default',
      taskQueue,
      tools: [benchTool],
      agents: [defineAgent({ name: 'default', system: 'You are a benchmark agent. Call the tools as asked.' })],
      openai: createModelClient({ baseURL, apiKey: 'bench' }),
      defaults: { model: 'bench-model', ...(modelRpm ? { modelRpm: Number(modelRpm) } : {}) },
      workflowBundle: { codePath },
      blobStore: blobStoreIn(dataDir),
    });
    await worker.runUntil(async () => {
      process.stdout.write('ready\n');
      await new Promise(() => undefined); // until killed
    });
  } finally {
    await connection.close();
  }
}

run().catch((err) => {
  console.error(err);
  process.exit(1);
});
