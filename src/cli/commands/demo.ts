import type { Command } from 'commander';
import { AgentLoopInputSchema } from '../../contract/agent-loop';
import { DEMO_GOAL } from '../../demo/demo-script';
import type { LoadedProject } from '../../project/load-project';
import { modelConfigProblem } from '../../settings';
import { action, note, projectOf, settings } from '../support';
import { launchRun } from './run';

/**
 * `waveloop demo`: the back-office demo, `waveloop run --agent back-office "Find Bob and update his
 * company to EPAM"`, run as `run` runs it. With a model endpoint configured (OPENAI_API_KEY or
 * OPENAI_BASE_URL) it runs on that model, on the configured task queue. Without one it starts the
 * scripted demo model (`src/demo/scripted-model.ts`) in this process, says so on stderr, and runs
 * the demo on the task queue `<WAVELOOP_TASK_QUEUE>-demo` (default `waveloop-demo`), served by a
 * worker in this process that calls the scripted model: a worker already polling the configured
 * queue (`waveloop dev`, `waveloop worker`) could not reach it. The scripted model stops with the
 * command; a demo run left waiting (Ctrl-C) goes on when the next `waveloop demo` serves its queue.
 */

/** Adds `waveloop demo`. */
export function register(program: Command): void {
  program
    .command('demo')
    .description(
      `run the back-office demo ("${DEMO_GOAL}") like \`run\`; with no model endpoint configured, on a scripted demo model`,
    )
    .argument('[goal...]', `what the back-office agent should do (default: "${DEMO_GOAL}")`)
    .action(action(async (goal: string[]) => demoCommand(goal, () => projectOf(program))));
}

async function demoCommand(goalWords: string[], project: () => Promise<LoadedProject>): Promise<number> {
  const input = AgentLoopInputSchema.parse({ goal: goalWords.join(' ') || DEMO_GOAL, agent: 'back-office' });
  const config = settings();
  const launch = (chosen: typeof config, loaded: LoadedProject) =>
    launchRun((client) => client.runs.start(input), { options: {}, project: loaded, config: chosen });
  const loaded = await project();
  if (!modelConfigProblem(config.model)) return launch(config, loaded);

  const { startScriptedModel } = await import('../../demo/scripted-model');
  const model = await startScriptedModel();
  try {
    const taskQueue = `${config.taskQueue}-demo`;
    note(
      [
        'No model endpoint is configured: the demo runs on a scripted demo model that knows only this scenario.',
        'For a real model, set OPENAI_API_KEY (OpenAI) or OPENAI_BASE_URL (any OpenAI-compatible endpoint).',
      ].join('\n'),
    );
    return await launch(
      { ...config, taskQueue, model: { ...config.model, baseURL: model.baseURL, apiKey: 'scripted-demo' } },
      loaded,
    );
  } finally {
    await model.close();
  }
}
