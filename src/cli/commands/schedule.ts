import { Option, type Command } from 'commander';
import {
  OVERLAP_POLICIES,
  ScheduleError,
  WaveloopSchedules,
  type Overlap,
  type ScheduleDefinition,
  type ScheduleReport,
  type ScheduleTiming,
} from '../../client/schedules';
import { flagOf, settingNamesOf, type SettingName } from '../../contract/settings/declarations';
import { formatDuration } from '../../contract/settings/duration';
import type { LoadedProject } from '../../project/load-project';
import { projectAgents } from '../../project/project-agents';
import { UsageError } from '../errors';
import { settingFields, settingOptions } from '../setting-options';
import { action, commaList, note, parseDuration, print, projectOf, settings, withClient } from '../support';
import { alignColumns } from '../ui/table';

/**
 * `waveloop schedule create | list | describe | pause | unpause | trigger | update | delete`:
 * recurring automations on Temporal Schedules. Each resolves to its exit status; a refused
 * schedule (bad goal, agent, cron expression, time zone) throws a `UsageError` and makes nothing.
 */

interface ScheduleOptions {
  cron?: string;
  every?: number;
  agent?: string;
  tools?: string[];
  timezone?: string;
  overlap?: Overlap;
  paused?: boolean;
  goalTree?: boolean;
  goal?: string;
  json?: boolean;
}

/** Adds the `schedule` command and its subcommands (a schedule may name the project config's agents). */
export function register(program: Command): void {
  const project = () => projectOf(program);
  const schedule = program
    .command('schedule')
    .description(
      'recurring runs on Temporal Schedules: create, list, describe, pause, unpause, trigger, update, delete',
    );
  const timingOptions = (command: Command) =>
    command
      .option('--cron <expression>', 'cron expression, e.g. "0 9 * * 1-5" (9:00 on weekdays)')
      .option('--every <duration>', 'a fixed interval, e.g. 1h or 30m', parseDuration)
      .option('--timezone <zone>', 'IANA time zone of the cron expression, e.g. Europe/Berlin (default UTC)')
      .addOption(
        new Option('--overlap <policy>', 'when a run is due while the last one still runs (default skip)').choices(
          OVERLAP_POLICIES,
        ),
      );
  const runOptions = (command: Command) => {
    command
      .option('--agent <name>', 'agent profile of the runs')
      .option('--tools <a,b>', 'tool allowlist, comma-separated', commaList)
      .option('--goal-tree', 'start a goal tree (pursueGoal) instead of an agent run');
    // Each run's settings, a flag named after each, as `waveloop run` has them.
    for (const option of settingOptions('run')) command.addOption(option);
    return command;
  };

  runOptions(
    timingOptions(
      schedule
        .command('create')
        .argument('<name>', 'the schedule, also the prefix of its runs’ ids')
        .argument('<goal...>', 'what each run should do'),
    ),
  )
    .option('--paused', 'create it paused')
    .description('create a schedule that starts a run at each due time')
    .action(
      action(async (name: string, goal: string[], options: ScheduleOptions) =>
        createCommand(name, goal.join(' '), options, await project()),
      ),
    );
  schedule
    .command('list')
    .option('--json', 'print JSON')
    .description('the schedules of waveloop runs')
    .action(action((options: { json?: boolean }) => listCommand(options)));
  schedule
    .command('describe')
    .argument('<name>')
    .option('--json', 'print JSON')
    .description('a schedule: its timing, last runs with their statuses, next times')
    .action(action((name: string, options: { json?: boolean }) => describeCommand(name, options)));
  for (const [verb, text] of [
    ['pause', 'stop starting runs (runs already started go on)'],
    ['unpause', 'start runs again at the due times'],
    ['trigger', 'start a run now (the overlap policy applies)'],
    ['delete', 'delete the schedule (its runs are not touched)'],
  ] as const) {
    schedule
      .command(verb)
      .argument('<name>')
      .description(text)
      .action(action((name: string) => simpleCommand(verb, name)));
  }
  runOptions(timingOptions(schedule.command('update').argument('<name>')))
    .option('--goal <text>', 'what each run should do from now on')
    .description("change a schedule's timing, overlap or runs; what is not given stays")
    .action(action(async (name: string, options: ScheduleOptions) => updateCommand(name, options, await project())));
}

async function createCommand(
  name: string,
  goal: string,
  options: ScheduleOptions,
  project: LoadedProject,
): Promise<number> {
  const timing = timingOf(options);
  if (!timing) throw new UsageError('Give the schedule a timing: --cron "<expression>" or --every <duration>.');
  const run = runOf(goal, options, project);
  await withSchedules((schedules) =>
    schedules.create({
      name,
      timing,
      timezone: options.timezone,
      overlap: options.overlap,
      paused: options.paused,
      run,
    }),
  );
  print(
    `Created schedule ${name}: ${describeTiming(timing, options.timezone)}${options.paused ? ' (paused)' : ''}. \`waveloop schedule describe ${name}\` shows its next times.`,
  );
  return 0;
}

async function updateCommand(name: string, options: ScheduleOptions, project: LoadedProject): Promise<number> {
  const timing = timingOf(options);
  const changesRun = options.goal !== undefined || options.goalTree || Object.keys(givenRunFields(options)).length > 0;
  if (!timing && !changesRun && !options.timezone && !options.overlap)
    throw new UsageError(
      `Nothing to update: give --cron, --every, --timezone, --overlap, --goal, --goal-tree, --agent, --tools or a setting (${settingOptions(
        'run',
      )
        .map((option) => option.long)
        .join(', ')}).`,
    );
  await withSchedules(async (schedules) => {
    // What is not given stays: the run's input as the schedule holds it, with what was given over it.
    const current = changesRun ? (await schedules.describe(name)).run : undefined;
    await schedules.update(name, {
      ...(timing ? { timing } : {}),
      ...(options.timezone ? { timezone: options.timezone } : {}),
      ...(options.overlap ? { overlap: options.overlap } : {}),
      ...(changesRun ? { run: runOf(options.goal ?? current?.input.goal ?? '', options, project, current) } : {}),
    });
  });
  print(`Updated schedule ${name}.`);
  return 0;
}

async function listCommand(options: { json?: boolean }): Promise<number> {
  const reports = await withSchedules((schedules) => schedules.list());
  if (options.json) print(JSON.stringify(reports, null, 2));
  else if (reports.length === 0)
    print('No schedules. `waveloop schedule create <name> "<goal>" --cron "0 9 * * 1-5"` makes one.');
  else for (const line of scheduleTable(reports)) print(line);
  return 0;
}

async function describeCommand(name: string, options: { json?: boolean }): Promise<number> {
  const report = await withSchedules((schedules) => schedules.describe(name));
  if (options.json) {
    print(JSON.stringify(report, null, 2));
    return 0;
  }
  print(
    `Schedule:   ${report.name} (${report.kind === 'goal-tree' ? 'goal tree' : 'agent run'})${report.paused ? ' · paused' : ''}`,
  );
  if (report.goal) print(`Goal:       ${report.goal}`);
  print(`Timing:     ${report.timing} · overlap ${report.overlap}`);
  if (report.note) print(`Note:       ${report.note}`);
  print(
    `Next:       ${
      report.nextTimes
        .slice(0, 3)
        .map((t) => t.toISOString())
        .join(', ') || '-'
    }`,
  );
  print(`Last runs:  ${report.recentRuns.length === 0 ? '-' : ''}`);
  for (const run of report.recentRuns.slice(-5))
    print(`  ${run.startedAt.toISOString()}  ${run.workflowId}  ${run.status ?? 'unknown'}`);
  return 0;
}

async function simpleCommand(verb: 'pause' | 'unpause' | 'trigger' | 'delete', name: string): Promise<number> {
  await withSchedules((schedules) => schedules[verb](name));
  const said = { pause: 'Paused', unpause: 'Unpaused', trigger: 'Triggered', delete: 'Deleted' }[verb];
  print(`${said} schedule ${name}.`);
  if (verb === 'trigger') note(`\`waveloop list --schedule ${name}\` shows its runs.`);
  return 0;
}

async function withSchedules<T>(work: (schedules: WaveloopSchedules) => Promise<T>): Promise<T> {
  return withClient(settings(), async (client) => {
    try {
      return await work(client.schedules);
    } catch (err) {
      throw err instanceof ScheduleError ? new UsageError(err.message) : err;
    }
  });
}

function timingOf(options: ScheduleOptions): ScheduleTiming | undefined {
  if (options.cron !== undefined && options.every !== undefined)
    throw new UsageError('Give --cron or --every, not both.');
  if (options.cron !== undefined) return { cron: options.cron };
  if (options.every !== undefined) return { everySeconds: options.every / 1000 };
  return undefined;
}

/** The run each due time starts; the agent must be one this project's workers offer. */
function runOf(
  goal: string,
  options: ScheduleOptions,
  project: LoadedProject,
  current?: ScheduleDefinition['run'],
): ScheduleDefinition['run'] {
  if (options.agent) {
    const known = projectAgents(project.config).map((agent) => agent.name);
    if (!known.includes(options.agent))
      throw new UsageError(`Unknown agent "${options.agent}". This project's agents: ${known.join(', ')}.`);
  }
  const given = givenRunFields(options);
  const kind = options.goalTree ? 'goal-tree' : (current?.kind ?? 'agent');
  const kept = current?.kind === kind ? current.input : {};
  if (kind === 'agent') return { kind, input: { ...kept, ...given, goal } };
  const treeSettings: readonly string[] = settingNamesOf('tree');
  const notForTrees = Object.keys(given).filter((field) => !['agent', 'tools', ...treeSettings].includes(field));
  if (notForTrees.length)
    throw new UsageError(
      `${notForTrees.map((field) => flagOf(field as SettingName)).join(', ')} do${notForTrees.length > 1 ? '' : 'es'} not apply to a goal tree.`,
    );
  return { kind, input: { ...kept, ...given, goal } };
}

/** The run's fields the options give (the agent, the tools, each setting flag), and only those. */
function givenRunFields(options: ScheduleOptions): Record<string, unknown> {
  const fields = { agent: options.agent, tools: options.tools, ...settingFields('run', options) };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

function describeTiming(timing: ScheduleTiming, timezone: string | undefined): string {
  const when =
    timing.cron !== undefined ? `cron "${timing.cron}"` : `every ${formatDuration(timing.everySeconds * 1000)}`;
  return timezone ? `${when} (${timezone})` : when;
}

function scheduleTable(reports: readonly ScheduleReport[]): string[] {
  return alignColumns([
    ['NAME', 'KIND', 'TIMING', 'STATE', 'NEXT', 'GOAL'],
    ...reports.map((r) => [
      r.name,
      r.kind,
      r.timing,
      r.paused ? 'paused' : 'active',
      r.nextTimes[0]?.toISOString() ?? '-',
      r.goal ?? '',
    ]),
  ]);
}
