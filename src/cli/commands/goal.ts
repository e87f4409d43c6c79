import { InvalidArgumentError, type Command } from 'commander';
import type { Worker } from '@temporalio/worker';
import { loadSettings, modelConfigProblem, type WaveloopSettings } from '../../settings';
import { WorkflowNotFoundError } from '@temporalio/client';
import { AGENT_LOOP_WORKFLOW } from '../../contract/agent-loop';
import { GoalTreeInputSchema, PURSUE_GOAL_WORKFLOW, type GoalResult } from '../../contract/goal-tree/pursue-goal';
import type { LoadedProject } from '../../project/load-project';
import type { WaveloopClient } from '../../client/waveloop-client';
import { followTree } from '../ui/goal-follow';
import { renderGoalTotals, renderGoalTree } from '../ui/goal-render';
import type { TerminalPrompts } from '../ui/terminal';
import { goalEvents } from '../../client/goal-tree';
import { createCliWorker } from '../worker-runtime';

/** What the goal commands borrow from the CLI (`cli.ts`): output, option parsers, server and client. */
export interface CliContext {
  print(line?: string): void;
  note(line: string): void;
  action<A extends unknown[]>(fn: (...args: A) => Promise<number>): (...args: A) => Promise<void>;
  parseDuration(value: string): number;
  parsePositiveInt(value: string): number;
  ensureServer(config: WaveloopSettings): Promise<string | undefined>;
  runUrl(uiUrl: string | undefined, config: WaveloopSettings, workflowId: string): string | undefined;
  withClient<T>(config: WaveloopSettings, work: (client: WaveloopClient) => Promise<T>): Promise<T>;
  usageError(message: string): Error;
  /** The project's config (`--config`, else the nearest `waveloop.config.ts`), for an in-process worker. */
  project(): Promise<LoadedProject>;
  /** Asks at this terminal what runs wait for; undefined when stdin is not a terminal. */
  prompts(client: WaveloopClient, out: (line: string) => void): TerminalPrompts | undefined;
}

interface GoalOptions {
  maxDepth?: number;
  maxGoals?: number;
  maxTime?: number;
  maxCost?: number;
  maxTokens?: number;
  tools?: string;
  model?: string;
  agent?: string;
  id?: string;
  detach?: boolean;
  json?: boolean;
}

/** `waveloop goal "<objective>"` and `waveloop tree <id> [--jsonl]`. */
export function registerGoalCommands(program: Command, cli: CliContext): void {
  program
    .command('goal')
    .description('pursue an objective as a tree of goals (each a workflow) and follow it live')
    .argument('<objective...>', 'what to achieve')
    .option('--max-depth <n>', 'deepest level of goals (default 5)', cli.parsePositiveInt)
    .option('--max-goals <n>', 'goals in the whole tree (default 50)', cli.parsePositiveInt)
    .option('--max-time <duration>', 'time limit of the whole tree, e.g. 10m (default 1h)', cli.parseDuration)
    .option('--max-cost <usd>', 'cost limit in USD (default 10)', parsePositiveNumber)
    .option('--max-tokens <n>', 'token limit of the whole tree', cli.parsePositiveInt)
    .option('--tools <a,b>', 'tools of the atomic goals, comma-separated (default: all)')
    .option('--model <name>', 'model name (overrides WAVELOOP_MODEL)')
    .option('--agent <name>', "agent profile the tool loops run as (its instructions, and its tools and model unless given)")
    .option('--id <workflowId>', 'workflow id of the root goal')
    .option('--detach', 'start the tree and exit')
    .option('--json', 'print the result object as JSON')
    .action(cli.action((words: string[], options: GoalOptions) => goalCommand(cli, words, options)));

  program
    .command('tree')
    .argument('<id>', 'workflow id of the root goal')
    .option('--jsonl', 'print the event log (started, assessed, decomposed, executed, achieved, synthesized) as JSON lines')
    .description('show a goal tree with statuses, timings and results, read from the workflow histories')
    .action(cli.action((id: string, options: { jsonl?: boolean }) => treeCommand(cli, id, options)));
}

async function goalCommand(cli: CliContext, words: string[], options: GoalOptions): Promise<number> {
  const config = loadSettings();
  const project = await cli.project();
  const constraints = {
    maxDepth: options.maxDepth,
    maxGoals: options.maxGoals,
    maxTimeSeconds: options.maxTime === undefined ? undefined : options.maxTime / 1000,
    maxCostUsd: options.maxCost,
    maxTokens: options.maxTokens,
  };
  const input = GoalTreeInputSchema.parse({
    objective: words.join(' '),
    constraints: Object.values(constraints).some((v) => v !== undefined) ? constraints : undefined,
    tools: options.tools?.split(',').map((t) => t.trim()).filter(Boolean),
    model: options.model,
    agent: options.agent,
  });
  // Trees on the embedded server are served by a worker of this machine, so it needs a model now.
  const problem = config.temporalAddress ? undefined : modelConfigProblem(config.model);
  if (problem) throw cli.usageError(problem);

  const uiUrl = await cli.ensureServer(config);
  const stopRequested = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  return cli.withClient(config, async (client) => {
    let inProcess: { worker: Worker; close: () => Promise<void>; running: Promise<void> } | undefined;
    const startWorker = async () => {
      if (inProcess) return;
      const { worker, close } = await createCliWorker('goal', config, project);
      inProcess = { worker, close, running: worker.run() };
      cli.note(`No worker was polling task queue "${config.taskQueue}": running one in this process for the tree.`);
    };
    if (!options.detach && !(await client.hasLiveWorker())) await startWorker();

    try {
      const handle = await client.startGoal(input, { workflowId: options.id });
      const id = handle.workflowId;
      const url = cli.runUrl(uiUrl, config, id);
      if (options.detach) {
        if (options.json) cli.print(JSON.stringify({ workflowId: id, runId: handle.firstExecutionRunId }));
        else cli.print(`Started goal tree ${id}${url ? ` · ${url}` : ''}`);
        return 0;
      }
      if (!options.json) cli.note(`Goal tree ${id} started${url ? ` · Web UI: ${url}` : ''}`);

      const out = options.json ? () => undefined : cli.print;
      const follow = followTree(client, id, out, options.json ? undefined : cli.prompts(client, out), async () => {
        if (!inProcess && (await client.waitingForWorker(id))) await startWorker();
      });
      let ended: { result?: GoalResult };
      try {
        ended = await Promise.race([client.goalResult(id).then((result) => ({ result })), stopRequested.then(() => ({}))]);
      } finally {
        await follow.stop();
      }
      const result = ended.result;
      if (!result) {
        cli.note(`Stopped following ${id}; the tree goes on in Temporal. \`waveloop tree ${id}\` shows it.`);
        return 130;
      }
      if (options.json) {
        cli.print(JSON.stringify(result, null, 2));
      } else {
        const tree = await client.goalTree(id);
        cli.print('');
        renderGoalTree(tree).forEach((line) => cli.print(line));
        cli.print(`\nResult: ${result.status} (${renderGoalTotals(tree)})`);
        cli.print(result.summary);
        if (result.key_findings.length) cli.print(`Key findings:\n${result.key_findings.map((f) => `- ${f}`).join('\n')}`);
        if (result.raw_evidence?.length) cli.print(`Evidence:\n${result.raw_evidence.map((e) => `- ${e}`).join('\n')}`);
        if (result.limitations.length) cli.print(`Limitations:\n${result.limitations.map((l) => `- ${l}`).join('\n')}`);
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

async function treeCommand(cli: CliContext, id: string, options: { jsonl?: boolean }): Promise<number> {
  return cli.withClient(loadSettings(), async (client) => {
    const problem = await notAGoalTree(client, id);
    if (problem) {
      cli.note(problem);
      return 1;
    }
    const tree = await client.goalTree(id);
    if (options.jsonl) {
      goalEvents(tree).forEach((event) => cli.print(JSON.stringify(event)));
      return 0;
    }
    renderGoalTree(tree).forEach((line) => cli.print(line));
    const totals = renderGoalTotals(tree);
    if (totals) cli.print(`\nUsed: ${totals}`);
    return 0;
  });
}

/** Why `id` has no goal tree to show, with the command that shows what it is instead; undefined for a goal. */
async function notAGoalTree(client: WaveloopClient, id: string): Promise<string | undefined> {
  let type: string;
  try {
    ({ type } = await client.handle(id).describe());
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return `No goal tree with id ${id}: \`waveloop list\` shows the recent agent runs and goal trees.`;
    throw err;
  }
  if (type === PURSUE_GOAL_WORKFLOW) return undefined;
  if (type === AGENT_LOOP_WORKFLOW) return `${id} is an agent run, not a goal tree: use \`waveloop status ${id}\` or \`waveloop show ${id}\`.`;
  return `${id} is a ${type} workflow, not a goal tree.`;
}

function parsePositiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a positive number');
  return n;
}
