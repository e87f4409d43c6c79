import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Option, type Command } from 'commander';
import { isRecording, type EvalRecording } from '../../client/eval-recording';
import type { WaveloopClient } from '../../client/waveloop-client';
import { RUN_STATUSES, type RunState } from '../../contract/agent-loop';
import type { EvalCase, EvalReport } from '../../contract/eval/eval';
import { WAVELOOP_EVAL } from '../../contract/search-attributes';
import type { LoadedProject } from '../../project/load-project';
import { modelConfigProblem, type WaveloopSettings } from '../../settings';
import { UsageError } from '../errors';
import { compareWithBaseline, isRegression, renderChanges } from '../eval/baseline';
import { parseDataset } from '../eval/dataset';
import { ReplayServer } from '../eval/replay-server';
import { renderReport } from '../eval/report-table';
import { InProcessWorker } from '../in-process-worker';
import { resolvePath } from '../io';
import {
  action,
  ensureServer,
  note,
  parseDuration,
  parsePositiveInt,
  print,
  projectOf,
  settings,
  withClient,
} from '../support';

/**
 * `waveloop eval <dataset.jsonl>`: runs every case of a dataset as a run (the durable `evalRun`
 * workflow), scores it, prints the report, compares it with a baseline; `eval export` writes a
 * dataset from runs that ended; `eval record` keeps an eval's model replies for `--replay`. Exit
 * status: 0 when every case passed (with `--baseline`: when nothing regressed), 1 otherwise, 2 for
 * a bad dataset or command line (nothing starts then).
 */

interface EvalOptions {
  agent?: string;
  model?: string;
  concurrency?: number;
  baseline?: string;
  json?: boolean;
  out?: string;
  name?: string;
  replay?: string;
  dryRun?: boolean;
}

/** The states a run ends in: what `eval export --status` takes. */
const ENDED_STATES = [...RUN_STATUSES, 'failed'] as const;

/** What `eval export --help` and `eval record --help` say of the one option they share with every command. */
const CONFIG_HELP =
  '\nGlobal Options:\n  --config <file>      the project config (default: the nearest waveloop.config.ts, .mjs or .js)';

/** Adds `waveloop eval`, `eval export` and `eval record`. */
export function register(program: Command): void {
  const command = program
    .command('eval')
    .description('run a dataset of goals as runs, score each, and compare with a baseline')
    .argument('<dataset>', 'a JSONL file: one { "goal", "expect"?, "agent"?, "tags"? } a line')
    .option('--agent <name>', 'the agent of the cases that name none')
    .option('--model <name>', 'the model of every case')
    .option('--concurrency <n>', 'cases that run at once (default 4)', parsePositiveInt)
    .option('--dry-run', 'run every case as a dry run: only read tools run, every other call is held back')
    .option('--baseline <report>', 'an earlier report (--out): mark regressions, exit 1 on one')
    .option('--json', 'print the report as JSON')
    .option('--out <file>', 'write the report as JSON to this file')
    .option('--name <name>', "the eval's name, its cases' WaveloopEval (default: the dataset's and the time)")
    .option(
      '--replay <file>',
      "answer the model calls from an earlier eval's replies (its report, or `eval record`'s file)",
    )
    .action(
      action(async (dataset: string, options: EvalOptions) => evalCommand(dataset, options, await projectOf(program))),
    );
  command
    .command('export')
    // eval's own options are not export's: only --config is shared (shown below the options).
    .configureHelp({ showGlobalOptions: false })
    .addHelpText('after', CONFIG_HELP)
    .description('write runs that ended as a dataset (JSONL on stdout): goals, with answers or outputs as expectations')
    .addOption(new Option('--status <status>', 'runs that ended so').choices(ENDED_STATES).default('completed'))
    .option('--since <duration>', 'runs started this long ago or later, e.g. 7d', parseDuration)
    .option('--agent <name>', 'only the runs of this agent')
    .option('--from <ids...>', 'these runs (workflow ids) instead')
    .option('--limit <n>', 'the most runs (default 500)', parsePositiveInt)
    // `eval`'s own --agent takes `eval export --agent` too (commander gives a parent's options precedence).
    .action(
      action((options: ExportCommandOptions) =>
        exportCommand({ ...options, agent: options.agent ?? command.opts<EvalOptions>().agent }),
      ),
    );
  command
    .command('record')
    .configureHelp({ showGlobalOptions: false })
    .addHelpText('after', CONFIG_HELP)
    .description("print an eval's model replies (from its report's runs) as a recording for --replay")
    .argument('<report>', 'the report of the eval (--out)')
    .action(action(recordCommand));
}

async function evalCommand(datasetFile: string, options: EvalOptions, project: LoadedProject): Promise<number> {
  const cases = readDataset(datasetFile, project);
  const baseline = options.baseline === undefined ? undefined : readReport(options.baseline, '--baseline');
  const replayFile = options.replay === undefined ? undefined : readJson(options.replay, '--replay');
  const name = options.name ?? defaultName(datasetFile);
  const config = settings();
  const problem = config.temporalAddress || replayFile ? undefined : modelConfigProblem(config.model);
  if (problem) throw new UsageError(problem);
  await ensureServer(config);

  return withClient(config, async (client) => {
    await requireEvalAttribute(client);
    const input = {
      name,
      cases,
      concurrency: options.concurrency,
      agent: options.agent,
      model: options.model,
      ...(options.dryRun ? { dryRun: true } : {}),
    };
    const report = replayFile
      ? await replayEval(
          client,
          config,
          project,
          { ...input, replayOf: options.replay! },
          await recordingOf(client, replayFile),
        )
      : await runEval(client, config, project, input);
    if (options.out) fs.writeFileSync(resolvePath(options.out), `${JSON.stringify(report, null, 2)}\n`);
    const changes = baseline ? compareWithBaseline(report, baseline) : [];
    if (options.json) print(JSON.stringify(baseline ? { ...report, baseline: changes } : report, null, 2));
    else {
      for (const line of renderReport(report)) print(line);
      if (baseline) for (const line of ['', ...renderChanges(changes)]) print(line);
    }
    if (baseline) return changes.some(isRegression) ? 1 : 0;
    return report.summary.passed === report.summary.cases ? 0 : 1;
  });
}

type StartInput = Parameters<WaveloopClient['evals']['start']>[0];

/** Starts the eval (with a worker in this process when none polls) and waits for its report. */
async function runEval(
  client: WaveloopClient,
  config: WaveloopSettings,
  project: LoadedProject,
  input: StartInput,
): Promise<EvalReport> {
  const inProcess = new InProcessWorker(config, project, () =>
    note(`No worker was polling task queue "${config.taskQueue}": running one in this process for the eval.`),
  );
  try {
    if (!(await client.hasLiveWorker())) await inProcess.start();
    const handle = await client.evals.start(input);
    note(`Eval ${input.name} started: ${input.cases.length} cases · ${handle.workflowId}`);
    return await client.evals.result(handle.workflowId);
  } finally {
    await inProcess.stop();
  }
}

/**
 * The eval with every model call answered from `recording` (`ReplayServer`): on a task queue of its
 * own, served by a worker in this process whose model endpoint is the replay, so no model is asked.
 */
async function replayEval(
  client: WaveloopClient,
  config: WaveloopSettings,
  project: LoadedProject,
  input: StartInput,
  recording: EvalRecording,
): Promise<EvalReport> {
  const server = new ReplayServer(recording);
  const baseURL = await server.start();
  const taskQueue = `${config.taskQueue}-replay-${randomUUID().slice(0, 8)}`;
  const replaying: WaveloopSettings = {
    ...config,
    taskQueue,
    model: { ...config.model, baseURL, apiKey: 'replay', stream: false },
    defaults: { ...config.defaults, model: config.defaults.model ?? 'replay' },
  };
  const worker = new InProcessWorker(replaying, project, () => undefined);
  try {
    await worker.start();
    const handle = await client.evals.start(input, { taskQueue });
    note(
      `Eval ${input.name} started: ${input.cases.length} cases replayed from ${recording.recordingOf} · ${handle.workflowId}`,
    );
    const report = await client.evals.result(handle.workflowId);
    note(`The replay answered ${server.answered} model calls; no model was asked.`);
    return report;
  } finally {
    await worker.stop();
    await server.stop();
  }
}

/** `--replay`'s file as a recording: as it is, or read from the histories of a report's cases. */
async function recordingOf(client: WaveloopClient, value: unknown): Promise<EvalRecording> {
  if (isRecording(value)) return value;
  return client.evals.recording(asReport(value, '--replay'));
}

interface ExportCommandOptions {
  status: RunState;
  since?: number;
  agent?: string;
  from?: string[];
  limit?: number;
}

async function exportCommand(options: ExportCommandOptions): Promise<number> {
  const config = settings();
  await ensureServer(config);
  return withClient(config, async (client) => {
    const cases = await client.evals.exportCases({
      status: options.status,
      since: options.since === undefined ? undefined : new Date(Date.now() - options.since),
      agent: options.agent,
      from: options.from,
      limit: options.limit,
    });
    for (const c of cases) print(JSON.stringify(c));
    note(`Exported ${cases.length} ${cases.length === 1 ? 'case' : 'cases'}.`);
    return 0;
  });
}

async function recordCommand(reportFile: string): Promise<number> {
  const report = readReport(reportFile, 'the report');
  const config = settings();
  await ensureServer(config);
  return withClient(config, async (client) => {
    print(JSON.stringify(await client.evals.recording(report)));
    return 0;
  });
}

/** The dataset's cases; a `UsageError` naming the line when one is bad, before anything starts. */
function readDataset(file: string, project: LoadedProject): EvalCase[] {
  let text: string;
  try {
    text = fs.readFileSync(resolvePath(file), 'utf8');
  } catch (err) {
    throw new UsageError(`Cannot read the dataset ${file}: ${(err as Error).message}`);
  }
  const parsed = parseDataset(
    text,
    project.config.scorers.map((scorer) => scorer.name),
  );
  if ('problem' in parsed) throw new UsageError(`${file}, ${parsed.problem}`);
  return parsed.cases;
}

function readJson(file: string, what: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(resolvePath(file), 'utf8'));
  } catch (err) {
    throw new UsageError(`${what} ${file}: ${(err as Error).message}`);
  }
}

function readReport(file: string, what: string): EvalReport {
  return asReport(readJson(file, what), `${what} ${file}`);
}

function asReport(value: unknown, what: string): EvalReport {
  const cases = (value as { cases?: unknown } | null)?.cases;
  const ok = Array.isArray(cases) && cases.every((c) => typeof (c as { goal?: unknown }).goal === 'string');
  if (!ok) throw new UsageError(`${what} is not an eval's report (waveloop eval --out): it has no cases`);
  return value as EvalReport;
}

/** `<dataset file's name>-<UTC time to the second>`. */
function defaultName(file: string): string {
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${path.basename(file).replace(/\.[^.]*$/, '')}-${stamp}`;
}

/** Refuses to start when the namespace lacks `WaveloopEval` (cases could not carry it). */
async function requireEvalAttribute(client: WaveloopClient): Promise<void> {
  const namespace = client.temporal.options.namespace;
  const { customAttributes } = await client.temporal.connection.operatorService.listSearchAttributes({ namespace });
  if (customAttributes?.[WAVELOOP_EVAL.name] === undefined)
    throw new UsageError(
      `The namespace ${namespace} lacks the search attribute ${WAVELOOP_EVAL.name}: run \`waveloop setup\` once.`,
    );
}
