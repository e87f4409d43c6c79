import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvalReport } from '../../src/contract/eval/eval';
import { cliFixture, waveloop, waveloopLive, workerProcess, type CliFixture, type LiveCommand } from '../support/cli';
import type { ChatRequest, ScriptedReply } from '../support/fake-model';
import { recordHistory } from '../support/history';
import { testProject, type TestProject } from '../support/project';
import { gate } from '../support/wait';

/**
 * Evals on a real server, as a user runs them: `waveloop eval` over a project whose worker is a
 * `waveloop worker` process (killed half-way through an eval), its custom scorer and the model judge,
 * a baseline that finds a planted regression, a dataset exported from real runs, and a replay that
 * asks no model.
 */

const CONFIG = (dir: string) => `import * as fs from 'node:fs';
import * as path from 'node:path';
import { defineAgent, defineConfig, defineScorer, defineTool } from 'waveloop';
import { z } from 'zod';

export default defineConfig({
  tools: [
    defineTool({
      name: 'lookup',
      description: 'Where a company is.',
      parameters: z.object({ name: z.string() }),
      execute: ({ name }) => {
        fs.appendFileSync(path.join(${JSON.stringify(dir)}, 'lookups.log'), name + '\\n');
        const facts = JSON.parse(fs.readFileSync(path.join(${JSON.stringify(dir)}, 'facts.json'), 'utf8'));
        return facts[name] ?? 'unknown';
      },
    }),
  ],
  agents: [
    defineAgent({ name: 'clerk', system: 'You find companies.', tools: ['lookup'] }),
    defineAgent({ name: 'typed', system: 'You name cities.', tools: ['lookup'], output: z.object({ city: z.string(), zip: z.string() }) }),
  ],
  scorers: [
    defineScorer({ name: 'no_apology', score: ({ result }) => ({ pass: !/sorry/i.test(result?.answer ?? ''), detail: 'it apologised' }) }),
    defineScorer({
      name: 'farewell_rule',
      score: (run) => {
        if (run.case.goal === 'Say bye') throw new Error('no rule for farewells yet');
        return true;
      },
    }),
  ],
});
`;

const C1 = 'Where is Acme?';
const C2 = 'Where is Globex?';
const C3 = 'Say hello';
const C4 = 'Say bye';
const C5 = 'Which city is the capital of Norway?';
const C6 = "Which city is on Norway's west coast?";

const DATASET = [
  {
    goal: C1,
    agent: 'clerk',
    expect: { contains: 'Berlin', toolsCalled: [{ name: 'lookup', args: { name: 'Acme' } }], maxIterations: 3 },
  },
  { goal: C2, agent: 'clerk', expect: { contains: 'Rome', toolsCalled: ['lookup'], maxIterations: 1 } },
  { goal: C3, expect: { equals: 'hello', maxTokens: 1000, judge: 'It is a greeting.' } },
  { goal: C4, expect: { equals: 'bye', maxTokens: 50, judge: 'It says goodbye.' } },
  { goal: C5, agent: 'typed', expect: { output: { city: 'Oslo' }, judge: 'It names Bergen.' } },
  {
    goal: C6,
    agent: 'typed',
    tags: ['west'],
    expect: { output: { city: 'Oslo' }, maxIterations: 1, status: 'max_iterations' },
  },
];

let cli: CliFixture;
let project: TestProject;
let worker: LiveCommand | undefined;

async function startWorker(): Promise<void> {
  worker = await workerProcess(cli.env, { cwd: project.dir });
}

const cmd = (args: string[]) => waveloop(args, cli.env, { cwd: project.dir });
const goalOf = (request: ChatRequest) => String(request.messages.find((m) => m.role === 'user')?.content);
const turns = (request: ChatRequest) => request.messages.filter((m) => m.role === 'assistant').length;
const isJudge = (request: ChatRequest) => String(request.messages[0].content).startsWith('You judge');
const lookups = () => fs.readFileSync(path.join(project.dir, 'lookups.log'), 'utf8').trim().split('\n');
const jsonl = (cases: unknown[]) => cases.map((c) => JSON.stringify(c)).join('\n') + '\n';

/** The replies of the cases' runs, by goal and turn, and the judge's verdicts. */
function reply(request: ChatRequest, answers: Record<string, ScriptedReply[]>): ScriptedReply {
  if (isJudge(request)) {
    // A judge that does not answer in JSON, for one case.
    if (String(request.messages[1].content).includes('Answer: bye now'))
      return { content: 'Looks like a goodbye to me.' };
    const pass = String(request.messages[1].content).includes('Answer: hello');
    return { content: JSON.stringify({ pass, reason: pass ? 'a greeting' : 'it names Oslo' }) };
  }
  const script = answers[goalOf(request)];
  if (!script) throw new Error(`no reply for ${goalOf(request)}`);
  return script[Math.min(turns(request), script.length - 1)];
}

const ANSWERS: Record<string, ScriptedReply[]> = {
  [C1]: [
    { toolCalls: [{ id: 'call_acme', name: 'lookup', args: { name: 'Acme' } }] },
    { content: 'Acme is in Berlin.' },
  ],
  [C2]: [{ content: 'Sorry, Globex is in Paris.' }],
  [C3]: [{ content: 'hello' }],
  [C4]: [{ content: 'bye now' }],
  [C5]: [{ content: '{"city":"Oslo","zip":"0150"}' }],
  [C6]: [
    { toolCalls: [{ id: 'call_bergen', name: 'lookup', args: { name: 'Bergen' } }] },
    { content: '{"city":"Bergen","zip":"5003"}' },
  ],
};

beforeAll(async () => {
  cli = await cliFixture('evals', { worker: false });
  project = testProject();
  project.write('waveloop.config.ts', CONFIG(project.dir));
  project.write('facts.json', JSON.stringify({ Acme: 'Berlin', Bergen: 'west coast', Initech: 'Austin' }));
  project.write('lookups.log', '');
  await startWorker();
});
afterAll(async () => {
  worker?.kill('SIGTERM');
  await worker?.done;
  project?.remove();
  await cli?.stop();
});

describe('waveloop eval', () => {
  it('a dataset with a bad line is refused, naming the line, and nothing starts', async () => {
    const file = project.write('bad.jsonl', jsonl([{ goal: C3 }, { goal: C4, expect: { polite: true } }]));
    const result = await cmd(['eval', file, '--name', 'bad']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}, line 2: expect.polite names no scorer`);
    expect(result.stderr).toContain("or the project's no_apology");
    const listed = await cmd(['list', '--eval', 'bad', '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  });

  it('six cases: every built-in scorer, the judge and the custom scorer pass and fail; a worker killed half-way loses nothing and no case runs twice', async () => {
    // The worker is killed while two model calls are held in flight: C4's first, and C1's second,
    // which C1 asks only once its `lookup` (a write tool) has completed, so no tool call is cut off
    // (its outcome would be unknown, and its case would wait for a person). While C1 is held, its
    // lane takes no other case.
    const c4Asked = gate();
    const c1Asked = gate();
    const held = gate();
    const seen: string[] = [];
    cli.fake.route(
      (request) => {
        if (isJudge(request)) return reply(request, ANSWERS);
        const call = `${goalOf(request)}#${turns(request)}`;
        seen.push(call);
        const first = seen.filter((s) => s === call).length === 1;
        if (first && call === `${C4}#0`) {
          c4Asked.open();
          return held.until.then(() => ({ content: 'bye now' }));
        }
        if (first && call === `${C1}#1`) {
          c1Asked.open();
          return held.until.then(() => reply(request, ANSWERS));
        }
        return reply(request, ANSWERS);
      },
      { atMost: 20 },
    );
    const dataset = project.write('six.jsonl', jsonl(DATASET));
    const out = path.join(project.dir, 'six-report.json');
    const running = waveloopLive(['eval', dataset, '--name', 'six', '--concurrency', '2', '--out', out], cli.env, {
      cwd: project.dir,
    });
    await Promise.all([c4Asked.until, c1Asked.until]);
    const beforeKill = [...seen];
    worker!.kill('SIGKILL');
    await worker!.done;
    held.open();
    await startWorker();
    const ended = await running.done;
    expect(ended.code, ended.stderr).toBe(1);

    const report = JSON.parse(fs.readFileSync(out, 'utf8')) as EvalReport;
    const verdicts = report.cases.map((c) => Object.fromEntries(Object.entries(c.scores).map(([k, s]) => [k, s.pass])));
    const own = { no_apology: true, farewell_rule: true };
    expect(verdicts).toEqual([
      { contains: true, toolsCalled: true, maxIterations: true, status: true, ...own },
      { contains: false, toolsCalled: false, maxIterations: true, status: true, ...own, no_apology: false },
      { equals: true, maxTokens: true, status: true, judge: true, ...own },
      { equals: false, maxTokens: false, status: true, judge: false, ...own, farewell_rule: false },
      { output: true, status: true, judge: false, ...own },
      { output: false, maxIterations: false, status: false, ...own },
    ]);
    // A custom scorer that throws fails its own case only, saying why; a judge that answers
    // without JSON is a failed score that says so.
    expect(report.cases[3].scores.farewell_rule.detail).toBe('the scorer threw: no rule for farewells yet');
    expect(report.cases[3].scores.judge.detail).toMatch(/: the reply was not a verdict: Looks like a goodbye to me\.$/);
    expect(report.cases.map((c) => c.passed)).toEqual([true, false, true, false, false, false]);
    expect(report.cases[4].scores.judge.detail).toMatch(
      /^judged by fake-model at http:\/\/127\.0\.0\.1:\d+\/v1: it names Oslo/,
    );
    expect(report.cases[5].scores.status.detail).toBe('completed, not max_iterations');
    expect(report.cases[0]).toMatchObject({ iterations: 2, tokens: 220, workflowId: `${report.workflowId}-1` });
    expect(report.summary).toMatchObject({ cases: 6, passed: 2, tokens: 880 });
    expect(report.summary.p95Ms).toBeGreaterThanOrEqual(report.summary.p50Ms);

    // The table, the reasons and the summary.
    expect(ended.stdout).toMatch(
      /^#\s+CASE\s+contains\s+toolsCalled\s+maxIterations\s+status\s+no_apology\s+farewell_rule\s+equals/m,
    );
    expect(ended.stdout).toContain('2 · contains: the answer lacks "Rome"');
    expect(ended.stdout).toContain('2 of 6 cases passed (33 %) · 880 tokens');

    // No case ran twice: one child each, each tool call once, each model call once but those in
    // flight when the worker died (each its case's latest call then), which were retried.
    expect([...new Set(seen)].sort()).toEqual(
      [`${C1}#0`, `${C1}#1`, `${C2}#0`, `${C3}#0`, `${C4}#0`, `${C5}#0`, `${C6}#0`, `${C6}#1`].sort(),
    );
    const retried = seen.filter((call, i) => seen.indexOf(call) !== i);
    expect(retried).toContain(`${C4}#0`);
    for (const call of retried) {
      const goal = call.slice(0, call.lastIndexOf('#'));
      expect(beforeKill.filter((s) => s.startsWith(`${goal}#`)).at(-1)).toBe(call);
    }
    expect(lookups()).toEqual(['Acme', 'Bergen']);
    const history = await cli.client.temporal.workflow.getHandle(report.workflowId).fetchHistory();
    const children = (history.events ?? []).filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes);
    expect(children).toHaveLength(6);
    // --concurrency 2: never more than two cases' runs open at once, in the eval's own history.
    let open = 0;
    let most = 0;
    for (const event of history.events ?? []) {
      if (event.startChildWorkflowExecutionInitiatedEventAttributes) most = Math.max(most, ++open);
      if (
        event.childWorkflowExecutionCompletedEventAttributes ||
        event.childWorkflowExecutionFailedEventAttributes ||
        event.childWorkflowExecutionTimedOutEventAttributes ||
        event.childWorkflowExecutionCanceledEventAttributes ||
        event.childWorkflowExecutionTerminatedEventAttributes ||
        event.startChildWorkflowExecutionFailedEventAttributes
      )
        open -= 1;
    }
    expect(most).toBe(2);
    const listed = await cmd(['list', '--eval', 'six', '--json']);
    const ids = (JSON.parse(listed.stdout) as Array<{ workflowId: string }>).map((r) => r.workflowId);
    expect(ids.sort()).toEqual(report.cases.map((c) => c.workflowId).sort());
  });

  it('against a baseline, a case that passed and fails now, and tokens up by more than 20 %, are marked, and the exit status is 1', async () => {
    const baseline = path.join(project.dir, 'six-report.json');
    cli.fake.route(
      (request) =>
        reply(request, {
          [C1]: [ANSWERS[C1][0], { content: 'Acme is in Hamburg.' }],
          [C3]: [{ content: 'hello', usage: { prompt_tokens: 300, completion_tokens: 10, total_tokens: 310 } }],
        }),
      { atMost: 4 },
    );
    const dataset = project.write('two.jsonl', jsonl([DATASET[0], DATASET[2]]));
    const result = await cmd(['eval', dataset, '--name', 'two', '--baseline', baseline]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain(`REGRESSED  ${C1}: passed before, fails now`);
    expect(result.stdout).toContain(`TOKENS     ${C3}: 110 → 310 (+182 %)`);
    expect(result.stdout).not.toContain(`TOKENS     ${C1}`);
  });

  it('a dataset exported from real runs passes its eval; replayed from that eval, no model is asked and a changed tool result is caught', async () => {
    cli.fake.route((request) => reply(request, ANSWERS), { atMost: 3 });
    const first = await cli.client.runs.start({ goal: C1, agent: 'clerk' });
    const second = await cli.client.runs.start({ goal: C3 });
    await cli.client.runs.result(first.workflowId);
    await cli.client.runs.result(second.workflowId);

    // Eval cases are not production runs: the search finds only the two.
    const searched = await cmd(['eval', 'export', '--status', 'completed', '--since', '1h']);
    expect(searched.code, searched.stderr).toBe(0);
    const lines = searched.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { goal: string });
    expect(lines.map((c) => c.goal).sort()).toEqual([C1, C3].sort());
    const exported = await cmd(['eval', 'export', '--agent', 'clerk', '--from', first.workflowId, second.workflowId]);
    expect(exported.stdout).toBe(
      `${JSON.stringify({ goal: C1, expect: { equals: 'Acme is in Berlin.' }, agent: 'clerk' })}\n`,
    );
    const dataset = project.write('exported.jsonl', searched.stdout);

    cli.fake.route((request) => reply(request, ANSWERS), { atMost: 3 });
    const out = path.join(project.dir, 'exported-report.json');
    const passed = await cmd(['eval', dataset, '--name', 'exported', '--out', out]);
    expect(passed.code, passed.stderr).toBe(0);
    expect(passed.stdout).toContain('2 of 2 cases passed (100 %)');
    const { workflowId } = JSON.parse(fs.readFileSync(out, 'utf8')) as EvalReport;
    // Named by its workflow id, which the replay needs: the cases' ids derive from it.
    await recordHistory(workflowId, cli.client.temporal.workflow.getHandle(workflowId));

    // The replay, from the eval's recording: no model call; Acme's lookup now says otherwise, which the replay catches.
    cli.fake.reset();
    const asked = cli.fake.received;
    const recorded = await cmd(['eval', 'record', out]);
    expect(recorded.code, recorded.stderr).toBe(0);
    const recording = project.write('recording.json', recorded.stdout);
    project.write('facts.json', JSON.stringify({ Acme: 'Munich' }));
    // A replay runs a worker of its own, in the command's process.
    const replayed = await waveloop(['eval', dataset, '--name', 'replayed', '--replay', recording, '--json'], cli.env, {
      cwd: project.dir,
      process: true,
    });
    expect(cli.fake.received).toBe(asked);
    expect(replayed.stderr).toContain('The replay answered 2 model calls; no model was asked.');
    const report = JSON.parse(replayed.stdout) as EvalReport;
    expect(report.replayOf).toBe(recording);
    const acme = report.cases.find((c) => c.goal === C1)!;
    expect(acme.passed).toBe(false);
    expect(acme.scores.status.detail).toMatch(
      /failed, not completed: .*the tool result of call_acme differs from the recording \(recorded "Berlin", now "Munich"\)/,
    );
    expect(report.cases.find((c) => c.goal === C3)).toMatchObject({ passed: true, tokens: 110 });
    expect(replayed.code).toBe(1);
  });
});
