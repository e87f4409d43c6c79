import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFixture, waveloop, waveloopLive, workerProcess, type CliFixture } from '../support/cli';
import { testProject, type TestProject } from '../support/project';
import { eventually } from '../support/wait';

/**
 * A worker stopped by SIGTERM (a deploy, a scale-down) while a tool call runs: it stops polling,
 * lets the call finish within its grace period, and exits; the run goes on on another worker and the
 * call is not made again.
 */

const CONFIG = (dir: string) => `import * as fs from 'node:fs';
import * as path from 'node:path';
import { defineConfig, defineTool } from 'waveloop';
import { z } from 'zod';

const log = (line: string) => fs.appendFileSync(path.join(${JSON.stringify(dir)}, 'export.log'), line + '\\n');

export default defineConfig({
  tools: [
    defineTool({
      name: 'slow_export',
      description: 'Exports the ledger; takes a while.',
      parameters: z.object({}),
      async execute(_args, { signal }) {
        log('started');
        // Runs until the test lets it finish, or until it is cancelled, as a well-behaved long tool does.
        while (!fs.existsSync(path.join(${JSON.stringify(dir)}, 'release'))) {
          if (signal.aborted) {
            log('cancelled');
            throw new Error('cancelled');
          }
          await new Promise((r) => setTimeout(r, 50));
          fs.appendFileSync(path.join(${JSON.stringify(dir)}, 'ticks'), '.');
        }
        log('finished');
        return 'exported 42 rows';
      },
    }),
  ],
});
`;

describe('graceful shutdown', () => {
  let cli: CliFixture;
  let project: TestProject;

  beforeAll(async () => {
    cli = await cliFixture('shutdown', { worker: false });
    project = testProject();
    project.write('waveloop.config.ts', CONFIG(project.dir));
  });
  afterAll(async () => {
    project?.remove();
    await cli?.stop();
  });

  it('SIGTERM during a slow tool call: the call finishes once, the worker exits 0, another worker completes the run', async () => {
    const logFile = path.join(project.dir, 'export.log');
    const tickFile = path.join(project.dir, 'ticks');
    const lines = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').trim().split('\n') : []);
    cli.fake.script({ toolCalls: [{ name: 'slow_export', args: {} }] }, { content: 'Exported the ledger.' });

    const worker = await workerProcess(cli.env, { cwd: project.dir });
    const started = await waveloop(['run', '--detach', '--json', 'Export the ledger'], cli.env, { cwd: project.dir });
    const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };
    await eventually(lines, (log) => log.includes('started'));

    const stateChanges = () => worker.stderr().split('Worker state changed').length - 1;
    const before = stateChanges();
    worker.kill('SIGTERM');
    // The worker logs its move to STOPPING: it was asked to stop and has stopped polling.
    await eventually(stateChanges, (count) => count > before);
    // Into its grace period the worker still waits for the call instead of cancelling it: the tool
    // goes on through twenty more rounds of its loop, each checking whether it was cancelled.
    const ticks = () => (fs.existsSync(tickFile) ? fs.readFileSync(tickFile, 'utf8').length : 0);
    const ticksAtStop = ticks();
    await eventually(ticks, (count) => count >= ticksAtStop + 20);
    expect(lines()).toEqual(['started']);
    fs.writeFileSync(path.join(project.dir, 'release'), '');
    const stopped = await worker.done;
    expect(stopped.code).toBe(0);
    expect(lines()).toEqual(['started', 'finished']);

    // The replacement, as a deploy starts it: the same project, a new process (served at once: the
    // stopped worker's sticky queue is let go instead of waiting for its timeout).
    await cli.h.client.workflowService.resetStickyTaskQueue({ namespace: 'default', execution: { workflowId } });
    const next = waveloopLive(['worker'], cli.env, { cwd: project.dir });
    const result = await cli.client.runs.result(workflowId).finally(() => next.kill('SIGTERM'));
    expect((await next.done).code).toBe(0);
    expect(result).toMatchObject({ status: 'completed', answer: 'Exported the ledger.' });
    expect(result.waves[0]!.calls[0]).toMatchObject({ tool: 'slow_export', ok: true, result: 'exported 42 rows' });
    expect(lines()).toEqual(['started', 'finished']);
  });
});
