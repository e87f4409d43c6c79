import * as readline from 'node:readline';
import { createCliWorker } from '../src/cli/worker-runtime';
import { loadProject } from '../src/project/load-project';
import { loadSettings } from '../src/settings';

/**
 * `waveloop worker` in a process of its own, for the waiting runs scenario: the CLI's own worker
 * (`createCliWorker`, which `waveloop worker` calls), over the project found from the working
 * directory (none: the demo's tools and agents, its database and audit trail in the data directory),
 * with every setting read from the environment as the CLI reads it (`TEMPORAL_ADDRESS`,
 * `WAVELOOP_DATA_DIR`, `WAVELOOP_TASK_QUEUE`, `OPENAI_BASE_URL`, …). Compiled into dist-bench/ with
 * the sources, so the bench does not depend on dist/. What `waveloop worker` cannot be told:
 * `node demo-worker-process.js [<maxCachedWorkflows>]` sets the workflow cache's size (default: the
 * SDK's). Prints `ready <JSON>` once it polls (its pid and the worker options it runs with), and
 * `memory <JSON>` (`process.memoryUsage()`) for every `memory` line it reads on stdin. SIGTERM stops it.
 */
async function run(): Promise<void> {
  const [cache] = process.argv.slice(2);
  const config = loadSettings();
  const project = await loadProject();
  if (project.file || !project.config.demo)
    throw new Error(`demo-worker-process: expected no project config, found ${project.file ?? 'a project'}`);
  const { worker, close } = await createCliWorker(
    'worker',
    config,
    project,
    cache === undefined ? {} : { maxCachedWorkflows: Number(cache) },
  );
  const { maxCachedWorkflows, reuseV8Context, workflowThreadPoolSize, maxConcurrentWorkflowTaskExecutions } =
    worker.options;
  readline.createInterface({ input: process.stdin }).on('line', (line) => {
    if (line.trim() === 'memory') process.stdout.write(`memory ${JSON.stringify(process.memoryUsage())}\n`);
  });
  try {
    // As `waveloop worker` runs it, until SIGTERM (the Temporal runtime then shuts the worker down).
    const running = worker.run();
    process.stdout.write(
      `ready ${JSON.stringify({ pid: process.pid, maxCachedWorkflows, reuseV8Context, workflowThreadPoolSize, maxConcurrentWorkflowTaskExecutions })}\n`,
    );
    await running;
  } finally {
    await close();
  }
}

run().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
