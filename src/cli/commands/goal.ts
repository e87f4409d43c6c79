import { WorkflowNotFoundError } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { goalEventRecord, goalEvents } from '../../client/goal-tree';
import type { WaveloopClient } from '../../client/waveloop-client';
import { AGENT_LOOP_WORKFLOW } from '../../contract/agent-loop';
import { PURSUE_GOAL_WORKFLOW } from '../../contract/goal-tree/defaults';
import { GoalTreeInputSchema, type GoalResult } from '../../contract/goal-tree/pursue-goal';
import { flagOf } from '../../contract/settings/declarations';
import { renamedMessage } from '../../contract/settings/renamed';
import { modelConfigProblem } from '../../settings';
import { describeError, UsageError } from '../errors';
import { readOutputSchemaFile } from '../output-schema-file';
import { settingFields, settingOptions } from '../setting-options';
import {
  action,
  byOption,
  commaList,
  ensureServer,
  note,
  print,
  projectOf,
  runUrl,
  settings,
  withClient,
} from '../support';
import { followTree } from '../ui/goal-follow';
import { renderGoalReport, renderGoalTotals, renderGoalTree } from '../ui/goal-render';
import { renderOutput } from '../ui/render';
import { terminalPrompts } from '../ui/terminal';
import { createCliWorker } from '../worker-runtime';

/** The flags that were renamed, old → new: given, they are refused with the new one. */
const RENAMED_FLAGS = {
  '--max-time': `\`${flagOf('timeoutSeconds')}\` (a number of seconds)`,
  '--max-cost': `\`${flagOf('maxCostUsd')}\``,
};

interface GoalOptions {
  tools?: string[];
  agent?: string;
  outputSchema?: string;
  id?: string;
  detach?: boolean;
  json?: boolean;
  by?: string;
}

/** `waveloop goal "<goal>"` and `waveloop tree <id> [--jsonl]`. */
export function register(program: Command): void {
  const goal = program
    .command('goal')
    .description('pursue a goal as a tree of goals (each a workflow) and follow it live')
    .argument('<goal...>', 'what to achieve');
  // Each of the tree's settings, a flag named after it (`timeoutSeconds` → `--timeout-seconds`).
  for (const option of settingOptions('tree')) goal.addOption(option);
  for (const [old, now] of Object.entries(RENAMED_FLAGS))
    goal.addOption(
      new Option(`${old} <value>`).hideHelp().argParser(() => {
        throw new InvalidArgumentError(renamedMessage(old, now));
      }),
    );
  goal
    .option('--tools <a,b>', 'tools of the atomic goals, comma-separated (default: all)', commaList)
    .option(
      '--agent <name>',
      'agent profile the tool loops run as (its instructions, and its tools and model unless given)',
    )
    .option('--output-schema <file>', "JSON Schema file the tree's result is also written as (printed as JSON)")
    .option('--id <workflowId>', 'workflow id of the root goal')
    .addOption(byOption('starts the tree, recorded as its startedBy'))
    .option('--detach', 'start the tree and exit')
    .option('--json', 'print the result object as JSON')
    .action(action((words: string[], options: GoalOptions) => goalCommand(program, words, options)));

  program
    .command('tree')
    .argument('<id>', 'workflow id of the root goal')
    .option(
      '--jsonl',
      'print the event log (started, assessed, decomposed, executed, achieved, synthesized) as JSON lines',
    )
    .description('show a goal tree with statuses, timings and results, read from the workflow histories')
    .action(action((id: string, options: { jsonl?: boolean }) => treeCommand(id, options)));
}

async function goalCommand(program: Command, words: string[], options: GoalOptions): Promise<number> {
  const config = settings();
  const project = await projectOf(program);
  const input = GoalTreeInputSchema.parse({
    goal: words.join(' '),
    ...settingFields('tree', options),
    tools: options.tools,
    agent: options.agent,
    startedBy: options.by,
    output: options.outputSchema === undefined ? undefined : readOutputSchemaFile(options.outputSchema),
  });
  // Trees on the embedded server are served by a worker of this machine, so it needs a model now.
  const problem = config.temporalAddress ? undefined : modelConfigProblem(config.model);
  if (problem) throw new UsageError(problem);

  const uiUrl = await ensureServer(config);
  const stopRequested = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  return withClient(config, async (client) => {
    let inProcess: { worker: Worker; close: () => Promise<void>; running: Promise<void> } | undefined;
    const startWorker = async () => {
      if (inProcess) return;
      const { worker, close } = await createCliWorker('goal', config, project);
      inProcess = { worker, close, running: worker.run() };
      note(`No worker was polling task queue "${config.taskQueue}": running one in this process for the tree.`);
    };
    if (!options.detach && !(await client.hasLiveWorker())) await startWorker();

    try {
      const handle = await client.goals.start(input, { workflowId: options.id });
      const id = handle.workflowId;
      const url = runUrl(uiUrl, config, id);
      if (options.detach) {
        if (options.json) print(JSON.stringify({ workflowId: id, runId: handle.firstExecutionRunId }));
        else print(`Started goal tree ${id}${url ? ` · ${url}` : ''}`);
        return 0;
      }
      if (!options.json) note(`Goal tree ${id} started${url ? ` · Web UI: ${url}` : ''}`);

      const out = options.json ? () => undefined : print;
      const follow = followTree(
        client,
        id,
        out,
        options.json ? undefined : terminalPrompts(client, out, describeError),
        async () => {
          if (!inProcess && (await client.runs.waitingForWorker(id))) await startWorker();
        },
      );
      let ended: { result?: GoalResult };
      try {
        ended = await Promise.race([
          client.goals.result(id).then((result) => ({ result })),
          stopRequested.then(() => ({})),
        ]);
      } finally {
        await follow.stop();
      }
      const result = ended.result;
      if (!result) {
        note(`Stopped following ${id}; the tree goes on in Temporal. \`waveloop tree ${id}\` shows it.`);
        return 130;
      }
      if (options.json) {
        print(JSON.stringify(result, null, 2));
      } else {
        const tree = await client.goals.tree(id);
        print('');
        renderGoalTree(tree).forEach((line) => print(line));
        print(`\nResult: ${result.status} (${renderGoalTotals(tree)})`);
        renderGoalReport(result.report).forEach((line) => print(line));
        renderOutput(result).forEach((line) => print(line));
      }
      return result.status === 'achieved' || result.status === 'synthesized' ? 0 : 1;
    } finally {
      if (inProcess) {
        if (inProcess.worker.getState() === 'RUNNING') inProcess.worker.shutdown();
        await inProcess.running;
        await inProcess.close();
      }
    }
  });
}

async function treeCommand(id: string, options: { jsonl?: boolean }): Promise<number> {
  return withClient(settings(), async (client) => {
    const problem = await notAGoalTree(client, id);
    if (problem) {
      note(problem);
      return 1;
    }
    const tree = await client.goals.tree(id);
    if (options.jsonl) {
      goalEvents(tree).forEach((event) => print(JSON.stringify(goalEventRecord(event))));
      return 0;
    }
    renderGoalTree(tree).forEach((line) => print(line));
    const totals = renderGoalTotals(tree);
    if (totals) print(`\nUsed: ${totals}`);
    return 0;
  });
}

/** Why `id` has no goal tree to show, with the command that shows what it is instead; undefined for a goal. */
async function notAGoalTree(client: WaveloopClient, id: string): Promise<string | undefined> {
  let type: string;
  try {
    ({ type } = await client.runs.handle(id).describe());
  } catch (err) {
    if (err instanceof WorkflowNotFoundError)
      return `No goal tree with id ${id}: \`waveloop list\` shows the recent agent runs and goal trees.`;
    throw err;
  }
  if (type === PURSUE_GOAL_WORKFLOW) return undefined;
  if (type === AGENT_LOOP_WORKFLOW)
    return `${id} is an agent run, not a goal tree: use \`waveloop status ${id}\` or \`waveloop show ${id}\`.`;
  return `${id} is a ${type} workflow, not a goal tree.`;
}
