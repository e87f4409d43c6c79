/**
 * Starting a run from your own script: connect, start, follow, print.
 *
 *   npm run build && node dist/examples/start-run.js "Find Bob and update his company to EPAM"
 *
 * It talks to the Temporal server of TEMPORAL_ADDRESS (default: the embedded one on 127.0.0.1:7233)
 * and needs a worker on the task queue (`npx waveloop dev` in another terminal).
 */
import { WaveloopClient } from 'waveloop';

async function run(): Promise<void> {
  const goal = process.argv.slice(2).join(' ') || 'Find Bob and update his company to EPAM';
  const client = await WaveloopClient.connect();
  try {
    const handle = await client.runs.start({ goal, agent: 'back-office', maxIterations: 10 }, { timeout: '10m' });
    console.log(`Started ${handle.workflowId}`);
    const result = await client.runs.result(handle.workflowId);
    for (const wave of result.waves) {
      for (const call of wave.calls)
        console.log(`wave ${wave.iteration}: ${call.tool} ${call.ok ? 'ok' : `failed: ${call.error}`}`);
    }
    console.log(`${result.status}: ${result.answer}`);
  } finally {
    await client.close();
  }
}

run().catch((err) => {
  console.error(err);
  process.exit(1);
});
