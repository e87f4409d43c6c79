import { setTracingDisabled } from '@openai/agents-core';
import { OpenAIProvider } from '@openai/agents-openai';
import { Client, Connection } from '@temporalio/client';
import { OpenAIAgentsPlugin } from '@temporalio/openai-agents';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import * as activities from './activities';

/**
 * Driven by waveloop's bench runner (bench/scenarios/overhead.ts): runs a worker of Temporal's
 * OpenAI Agents integration against the given server and fake model, starts the given runs (one
 * after another, or all at once), and prints one JSON line with the outcome. Timings are taken by
 * the fake model, in the runner's process, the same way for every engine.
 */
interface Spec {
  address: string;
  baseURL: string;
  taskQueue: string;
  runs: Array<{ id: string; goal: string; maxTurns: number }>;
  concurrent?: boolean;
}

async function run(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '') as Spec;
  setTracingDisabled(true);
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const modelProvider = new OpenAIProvider({ apiKey: 'bench', baseURL: spec.baseURL, useResponses: false });
  // waveloop's model activity options: five minutes per attempt, heartbeats every 10 s.
  const plugin = new OpenAIAgentsPlugin({ modelProvider, modelParams: { startToCloseTimeout: '5 minutes', heartbeatTimeout: '10 seconds' } });
  const nativeConnection = await NativeConnection.connect({ address: spec.address });
  const connection = await Connection.connect({ address: spec.address });
  try {
    const worker = await Worker.create({
      connection: nativeConnection,
      taskQueue: spec.taskQueue,
      workflowsPath: require.resolve('./workflows'),
      activities,
      plugins: [plugin],
    });
    const client = new Client({ connection, plugins: [plugin] });
    const outcome = await worker.runUntil(async () => {
      process.stdout.write('ready\n');
      const results: Array<{ id: string; ok: boolean; ms: number; cpuMs: number; error?: string }> = [];
      // cpuMs: this process's CPU time during the run (the worker's share; meaningful for runs one at a time).
      const one = async (r: Spec['runs'][number]) => {
        const started = performance.now();
        const cpu = process.cpuUsage();
        const spent = () => {
          const used = process.cpuUsage(cpu);
          return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
        };
        try {
          await client.workflow.execute('benchAgent', { taskQueue: spec.taskQueue, workflowId: r.id, args: [{ goal: r.goal, maxTurns: r.maxTurns }] });
          results.push({ id: r.id, ok: true, ...spent() });
        } catch (err) {
          results.push({ id: r.id, ok: false, ...spent(), error: String((err as Error).cause ?? err) });
        }
      };
      if (spec.concurrent) await Promise.all(spec.runs.map(one));
      else for (const r of spec.runs) await one(r);
      return results;
    });
    process.stdout.write(`${JSON.stringify({ results: outcome, rss: process.memoryUsage().rss })}\n`);
  } finally {
    await connection.close();
    await nativeConnection.close();
  }
}

run().catch((err) => {
  console.error(err);
  process.exit(1);
});
