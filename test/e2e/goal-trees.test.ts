import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import type { History } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { goalEvents, readGoalTree } from '../../src/client/goal-tree';
import type { GoalResult } from '../../src/contract/goal-tree/pursue-goal';
import { FAKE_USAGE } from '../support/fake-model';
import {
  achievement,
  assess,
  decomposition,
  goalModel,
  prompt,
  synthesis,
  type GoalScript,
} from '../support/goal-model';
import { Harness } from '../support/harness';
import { activities, recordHistory } from '../support/history';

const EventType = temporal.api.enums.v1.EventType;

const h = new Harness();
beforeAll(() => h.start());
afterAll(() => h.stop());

/** Scripts the fake model with `script` and returns the router (for its requests and `assertDone`). */
function model(script: GoalScript) {
  const router = goalModel(script);
  h.fake.script(...router.steps);
  return router;
}

/** Child workflow starts and ends in a parent's history, by child workflow id. */
function childEvents(history: History) {
  const children = new Map<
    string,
    { type: string; initiated: number; closed?: number; timeoutMs?: number; summary?: string }
  >();
  for (const event of history.events ?? []) {
    const id = Number(event.eventId);
    if (event.eventType === EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED) {
      const attrs = event.startChildWorkflowExecutionInitiatedEventAttributes!;
      const timeout = attrs.workflowExecutionTimeout;
      children.set(attrs.workflowId!, {
        type: attrs.workflowType!.name!,
        initiated: id,
        timeoutMs: timeout ? Number(timeout.seconds ?? 0) * 1000 + Math.round((timeout.nanos ?? 0) / 1e6) : undefined,
        summary: event.userMetadata?.summary
          ? String(defaultPayloadConverter.fromPayload(event.userMetadata.summary))
          : undefined,
      });
    }
    const closed =
      event.childWorkflowExecutionCompletedEventAttributes ??
      event.childWorkflowExecutionFailedEventAttributes ??
      event.childWorkflowExecutionTimedOutEventAttributes;
    if (closed) children.get(closed.workflowExecution!.workflowId!)!.closed = id;
  }
  return children;
}

/** The commands (activities, children, timers) a workflow issued after event `eventId`; it must have completed after it. */
function commandsAfter(history: History, eventId: number): string[] {
  const events = (history.events ?? []).filter((event) => Number(event.eventId) > eventId);
  expect(events.at(-1)?.eventType).toBe(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
  const commands = [
    EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
    EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
    EventType.EVENT_TYPE_TIMER_STARTED,
  ];
  return events.filter((event) => commands.includes(event.eventType!)).map((event) => EventType[event.eventType!]);
}

/** The durable timers a history started: when, and after how long they fire. */
function timersStarted(history: History): Array<{ eventId: number; fireMs: number }> {
  return (history.events ?? [])
    .filter((event) => event.eventType === EventType.EVENT_TYPE_TIMER_STARTED)
    .map((event) => {
      const timeout = event.timerStartedEventAttributes!.startToFireTimeout!;
      return {
        eventId: Number(event.eventId),
        fireMs: Number(timeout.seconds ?? 0) * 1000 + Math.round((timeout.nanos ?? 0) / 1e6),
      };
    });
}

function statuses(result: GoalResult): unknown {
  return {
    [result.goal]: result.status,
    ...(result.children.length ? { children: result.children.map(statuses) } : {}),
  };
}

const TREE_ID = 'goal-tree';
const OFFSITE = 'Plan a team offsite in Lisbon';
const VENUES = 'Research venues in Lisbon';
const LIST = 'List venues with space for 20 people';
const PRICES = 'Compare venue prices';
const BUDGET = 'Estimate the travel budget';
const AGENDA = 'Draft the agenda';

describe('pursueGoal', () => {
  it('a three-level tree: independent sub-goals run at once, a dependent one sees their evidence, leaves execute', async () => {
    const router = model({
      [OFFSITE]: {
        assessment: [assess.decompose()],
        decomposition: [decomposition(VENUES, BUDGET, [AGENDA, [0, 1]])],
        achievement: [achievement(false, ['no agenda yet']), achievement(true)],
        synthesis: [
          synthesis('Offsite planned: Casa Azul, 900 EUR each, two-day agenda.', ['Casa Azul fits 30'], 0.8, [
            'Casa Azul fits 30 people.',
            'Travel costs about 900 EUR a person.',
          ]),
        ],
      },
      [VENUES]: {
        assessment: [assess.decompose()],
        decomposition: [decomposition(LIST, PRICES)],
        achievement: [achievement(true)],
        synthesis: [synthesis('Casa Azul is the best venue.', ['Casa Azul fits 30', 'Casa Azul is cheapest'])],
      },
      [LIST]: {
        assessment: [assess.tools('compute capacity with a buffer')],
        agent: [
          { toolCalls: [{ name: 'calculator', args: { expression: '20 * 1.5' } }] },
          { content: 'Casa Azul fits 30 people.' },
        ],
      },
      [PRICES]: {
        assessment: [assess.answer()],
        synthesis: [synthesis('Casa Azul is the cheapest venue.', ['Casa Azul is cheapest'])],
      },
      [BUDGET]: {
        assessment: [assess.answer()],
        synthesis: [synthesis('Travel costs about 900 EUR a person.', ['900 EUR each'])],
      },
      [AGENDA]: { assessment: [assess.answer()], synthesis: [synthesis('Day 1 workshops, day 2 sailing.')] },
    });

    const { handle, result, error } = await h.pursue({ goal: OFFSITE, tools: ['calculator'] }, { workflowId: TREE_ID });
    expect(error).toBeUndefined();
    await recordHistory('goal-tree', handle);
    await recordHistory('goal-tree-child', h.client.workflow.getHandle(`${TREE_ID}/1`));

    h.fake.assertDone();
    router.assertDone();
    expect(statuses(result!)).toEqual({
      [OFFSITE]: 'achieved',
      children: [
        { [VENUES]: 'achieved', children: [{ [LIST]: 'achieved' }, { [PRICES]: 'achieved' }] },
        { [BUDGET]: 'achieved' },
        { [AGENDA]: 'achieved' },
      ],
    });
    expect(result!.report.summary).toBe('Offsite planned: Casa Azul, 900 EUR each, two-day agenda.');
    const [venues, budget, agenda] = result!.children;
    expect([
      result!.workflowId,
      venues.workflowId,
      venues.children[0].workflowId,
      venues.children[1].workflowId,
      budget.workflowId,
      agenda.workflowId,
    ]).toEqual([TREE_ID, `${TREE_ID}/1`, `${TREE_ID}/1.1`, `${TREE_ID}/1.2`, `${TREE_ID}/2`, `${TREE_ID}/3`]);
    expect(venues.children.map((c) => c.depth)).toEqual([2, 2]);
    // The atomic goal with tools ran as a tool loop; its tool calls are its findings.
    expect(venues.children[0].report.summary).toBe('Casa Azul fits 30 people.');
    expect(venues.children[0].report.key_findings).toEqual(['calculator({"expression":"20 * 1.5"}) → 30']);
    // Seed 002's raw evidence: the tool loop's tool results; the synthesis quotes what backs it.
    expect(venues.children[0].report.raw_evidence).toEqual(['30']);
    expect(result!.report.raw_evidence).toEqual(['Casa Azul fits 30 people.', 'Travel costs about 900 EUR a person.']);
    const synthesisRequest = h.fake.requests.find((r) => r.response_format?.json_schema?.name === 'synthesis');
    expect(JSON.stringify(synthesisRequest?.response_format?.json_schema?.schema)).toContain('"raw_evidence"');
    // Six goals; every model call (18, two of them the tool loop's) is accounted for at the root.
    expect(result!.goals).toBe(6);
    expect(h.fake.requests).toHaveLength(18);
    expect(result!.usage.totalTokens).toBe(18 * FAKE_USAGE.total_tokens);

    // Level 1 (venues, budget) started together, before either ended; the agenda started after both.
    const root = childEvents(await handle.fetchHistory());
    const [v, b, a] = [`${TREE_ID}/1`, `${TREE_ID}/2`, `${TREE_ID}/3`].map((id) => root.get(id)!);
    expect(Math.max(v.initiated, b.initiated)).toBeLessThan(Math.min(v.closed!, b.closed!));
    expect(a.initiated).toBeGreaterThan(Math.max(v.closed!, b.closed!));
    // Each child workflow carries its goal as its summary (the Web UI shows the tree readably).
    expect([v.summary, b.summary, a.summary]).toEqual([VENUES, BUDGET, AGENDA]);
    expect(
      childEvents(await h.client.workflow.getHandle(`${TREE_ID}/1.1`).fetchHistory()).get(`${TREE_ID}/1.1/exec`),
    ).toMatchObject({
      type: 'agentLoop',
      summary: `tools · ${LIST}`,
    });

    // The dependent goal saw the evidence of both earlier ones, and the goal of the whole tree.
    const agendaPrompt = prompt(router.requests(AGENDA, 'assessment')[0]);
    expect(agendaPrompt).toContain('[achieved] Research venues in Lisbon: Casa Azul is the best venue.');
    expect(agendaPrompt).toContain('[achieved] Estimate the travel budget: Travel costs about 900 EUR a person.');
    expect(agendaPrompt).toContain(`The goal of the whole tree: ${OFFSITE}`);
    expect(agendaPrompt).toContain(`Goal stack (root first): "${OFFSITE}"`);
    // A grandchild knows its whole stack; the tool loop got the goal first, then its context.
    expect(prompt(router.requests(LIST, 'assessment')[0])).toContain(`"${OFFSITE}" > "${VENUES}"`);
    expect(prompt(router.requests(LIST, 'agent')[0])).toContain(`The goal of the whole tree: ${OFFSITE}`);
    // A decomposition is told why it is needed and which goals the tree already pursues elsewhere (seed 002).
    const venuesPlan = prompt(router.requests(VENUES, 'decomposition')[0]);
    expect(venuesPlan).toContain('WHY DECOMPOSITION IS NEEDED: several parts');
    expect(venuesPlan).toContain(
      `OTHER GOALS ALREADY IN THE TREE (pursued elsewhere; do not plan them again):\n- ${BUDGET}\n- ${AGENDA}\n`,
    );
    expect(prompt(router.requests(OFFSITE, 'decomposition')[0])).not.toContain('OTHER GOALS ALREADY IN THE TREE');
    // Structured output: each component asks for its JSON Schema by name.
    const schema = router.requests(OFFSITE, 'decomposition')[0].response_format!.json_schema!;
    expect(schema.name).toBe('decomposition');
    expect(JSON.stringify(schema.schema)).toContain('estimated_complexity');
  });

  it('the JSONL event log of a finished tree is derived from the workflow histories', async () => {
    const events = goalEvents(await readGoalTree(h.client, TREE_ID));

    const of = (goal: string) => events.filter((e) => e.goal === goal).map((e) => e.eventType);
    expect(of(OFFSITE)).toEqual(['started', 'assessed', 'decomposed', 'achieved', 'synthesized']);
    expect(of(VENUES)).toEqual(['started', 'assessed', 'decomposed', 'achieved', 'synthesized']);
    expect(of(LIST)).toEqual(['started', 'assessed', 'executed']);
    expect(of(AGENDA)).toEqual(['started', 'assessed', 'executed']);
    expect([...events].sort((x, y) => x.timestamp.localeCompare(y.timestamp))).toEqual(events);

    const root = events.find((e) => e.goal === OFFSITE && e.eventType === 'decomposed')!;
    expect(root).toMatchObject({
      depth: 0,
      parentGoal: null,
      workflowId: TREE_ID,
      data: { sub_goal_count: 3, levels: [[0, 1], [2]] },
    });
    expect(events.find((e) => e.goal === OFFSITE && e.eventType === 'achieved')!.data).toMatchObject({
      sub_goals_completed: 3,
    });
    expect(events.find((e) => e.goal === LIST && e.eventType === 'executed')).toMatchObject({
      depth: 2,
      parentGoal: VENUES,
      workflowId: `${TREE_ID}/1.1`,
      data: { success: true, mode: 'tools', workflow_id: `${TREE_ID}/1.1/exec` },
    });
    expect(events.find((e) => e.goal === PRICES && e.eventType === 'assessed')!.data).toEqual({
      directly_executable: true,
      action: 'answer',
    });
    // Every line is JSON that round-trips.
    for (const event of events) expect(JSON.parse(JSON.stringify(event))).toEqual(event);
  });

  it('early stop: the achievement check after the first level ends the goal; the dependent sub-goal never starts', async () => {
    const GOAL = 'Find the capital of Portugal';
    const LOOKUP = 'Look up the capital of Portugal';
    const router = model({
      [GOAL]: {
        assessment: [assess.decompose()],
        decomposition: [decomposition(LOOKUP, ['Double-check the answer with a second source', [0]])],
        achievement: [achievement(true)],
        synthesis: [synthesis('The capital of Portugal is Lisbon.', ['Lisbon'], 0.95)],
      },
      // The first reply does not match the schema: it is shown to the model once, with the error.
      [LOOKUP]: {
        assessment: [{ content: '{"directly_executable": "yes"}' }, assess.answer()],
        synthesis: [synthesis('Lisbon.')],
      },
    });

    const { handle, result } = await h.pursue({ goal: GOAL, tools: [] });

    h.fake.assertDone();
    router.assertDone();
    expect(result).toMatchObject({
      status: 'achieved',
      report: { summary: 'The capital of Portugal is Lisbon.', confidence: 0.95 },
      goals: 2,
    });
    expect(result!.children.map((c) => [c.goal, c.status])).toEqual([[LOOKUP, 'achieved']]);
    expect([...childEvents(await handle.fetchHistory()).keys()]).toEqual([`${handle.workflowId}/1`]);
    const retry = router.requests(LOOKUP, 'assessment')[1];
    expect(retry.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(prompt(retry)).toMatch(/did not match the schema: directly_executable: .*boolean/);
    expect(
      activities(await h.client.workflow.getHandle(`${handle.workflowId}/1`).fetchHistory()).map((a) => a.summary),
    ).toEqual(['assess', 'assess · retry (invalid reply)', 'answer']);
  });

  it('a reply that does not parse twice is a failed component: the goal fails, the workflow does not', async () => {
    const GOAL = 'Say something structured';
    const router = model({
      [GOAL]: { assessment: [{ content: 'Sure! I think…' }, { content: '```json\n{"reasoning": 1}\n```' }] },
    });

    const { result } = await h.pursue({ goal: GOAL });

    h.fake.assertDone();
    router.assertDone();
    expect(result).toMatchObject({ status: 'failed', goals: 1, children: [] });
    expect(result!.reason).toMatch(/^assess: the model's reply did not match the schema twice \(.*directly_executable/);
  });

  it('depth limit: a goal at the deepest level that would need decomposing is constrained, with no sub-goals', async () => {
    const GOAL = 'Write a market study';
    const SURVEY = 'Survey the competitors';
    const router = model({
      [GOAL]: {
        assessment: [assess.decompose()],
        decomposition: [decomposition(SURVEY, 'Estimate the market size')],
        achievement: [achievement(false)],
        synthesis: [synthesis('Market size known, competitors not surveyed.')],
      },
      [SURVEY]: { assessment: [assess.decompose()] },
      'Estimate the market size': { assessment: [assess.answer()], synthesis: [synthesis('About 2 billion EUR.')] },
    });

    const { handle, result } = await h.pursue({ goal: GOAL, maxDepth: 2, tools: [] });

    h.fake.assertDone();
    router.assertDone();
    expect(result!.status).toBe('synthesized');
    const survey = result!.children[0];
    expect(survey).toMatchObject({ status: 'constrained', constraint: 'depth', depth: 1, children: [], goals: 1 });
    expect(survey.reason).toMatch(/^Max depth \(2\) reached/);
    // It was told it could not decompose, and no decomposition was asked for.
    expect(prompt(router.requests(SURVEY, 'assessment')[0])).toContain('Decomposition is NOT possible here');
    expect(
      activities(await h.client.workflow.getHandle(`${handle.workflowId}/1`).fetchHistory()).map((a) => a.type),
    ).toEqual(['assessGoal']);
  });

  it('goal limit with parallel children: quotas handed out before the start; the tree never exceeds maxGoals', async () => {
    const GOAL = 'Compare four cloud providers';
    const [A, B, C, D] = ['Assess provider A', 'Assess provider B', 'Assess provider C', 'Assess provider D'];
    const router = model({
      [GOAL]: {
        assessment: [assess.decompose()],
        decomposition: [decomposition(A, B, C, D)],
        achievement: [achievement(false)],
        synthesis: [synthesis('Only B could be assessed.')],
      },
      [A]: { assessment: [assess.decompose()] },
      [B]: { assessment: [assess.answer()], synthesis: [synthesis('B is fine.')] },
    });

    const { handle, result } = await h.pursue({ goal: GOAL, maxGoals: 3, tools: [] });

    h.fake.assertDone();
    router.assertDone();
    expect(result).toMatchObject({
      status: 'constrained',
      constraint: 'goals',
      goals: 3,
      report: { summary: 'Only B could be assessed.' },
    });
    expect(result!.reason).toMatch(/^Goal limit \(3\) reached/);
    expect(result!.children.map((c) => [c.goal, c.status, c.workflowId])).toEqual([
      [A, 'constrained', `${handle.workflowId}/1`],
      [B, 'achieved', `${handle.workflowId}/2`],
      [C, 'constrained', undefined],
      [D, 'constrained', undefined],
    ]);
    // A got a quota of one goal (itself): it could not decompose, so started nothing.
    expect(result!.children[0]).toMatchObject({ constraint: 'goals', children: [], goals: 1 });
    const started = childEvents(await handle.fetchHistory());
    expect([...started.keys()]).toEqual([`${handle.workflowId}/1`, `${handle.workflowId}/2`]);
    const [a, b] = [...started.values()];
    expect(Math.max(a.initiated, b.initiated)).toBeLessThan(Math.min(a.closed!, b.closed!));
    expect(childEvents(await h.client.workflow.getHandle(`${handle.workflowId}/1`).fetchHistory()).size).toBe(0);
  });

  it('time limit reaching a grandchild: its workflow times out; the tree ends constrained, not crashed', async () => {
    const GOAL = 'Prepare the quarterly report';
    const DATA = 'Collect the quarterly data';
    const SALES = 'Export the sales figures';
    const router = model({
      [GOAL]: { assessment: [assess.decompose()], decomposition: [decomposition(DATA)] },
      [DATA]: { assessment: [assess.decompose()], decomposition: [decomposition(SALES)] },
      // A model slower than the time the grandchild has left. The limit leaves the two levels above
      // seconds to decompose, even on a loaded machine.
      [SALES]: { assessment: [{ ...assess.answer(), delayMs: 10_000 }] },
    });

    const { handle, result } = await h.pursue(
      { goal: GOAL, timeoutSeconds: 5, tools: [] },
      { workflowId: 'goal-time-limit' },
    );
    await recordHistory('goal-time-limit', handle);
    await recordHistory('goal-time-limit-child', h.client.workflow.getHandle('goal-time-limit/1'));

    h.fake.assertDone();
    router.assertDone();
    expect(result).toMatchObject({ status: 'constrained', constraint: 'time' });
    expect(result!.reason).toMatch(/^Time limit \(5s\) reached/);
    const data = result!.children[0];
    expect(data).toMatchObject({
      goal: DATA,
      status: 'constrained',
      constraint: 'time',
      workflowId: 'goal-time-limit/1',
    });
    expect(data.children[0]).toMatchObject({
      goal: SALES,
      status: 'constrained',
      constraint: 'time',
      workflowId: 'goal-time-limit/1.1',
    });
    expect((await h.client.workflow.getHandle('goal-time-limit/1.1').describe()).status.name).toBe('TIMED_OUT');
    expect((await h.client.workflow.getHandle('goal-time-limit/1').describe()).status.name).toBe('COMPLETED');
    // The limit became workflow timeouts: each child gets what its parent has left (minus a reserve).
    const childTimeout = childEvents(await handle.fetchHistory()).get('goal-time-limit/1')!.timeoutMs!;
    const grandchildTimeout = childEvents(await h.client.workflow.getHandle('goal-time-limit/1').fetchHistory()).get(
      'goal-time-limit/1.1',
    )!.timeoutMs!;
    expect(childTimeout).toBeLessThanOrEqual(5_000);
    expect(grandchildTimeout).toBeLessThan(childTimeout);
    // The tree did not wait for the slow model: once the grandchild timed out, its parent, then the
    // root, ended with no further command (no model call, no child, no new timer).
    const rootHistory = await handle.fetchHistory();
    const dataHistory = await h.client.workflow.getHandle('goal-time-limit/1').fetchHistory();
    expect(commandsAfter(dataHistory, childEvents(dataHistory).get('goal-time-limit/1.1')!.closed!)).toEqual([]);
    expect(commandsAfter(rootHistory, childEvents(rootHistory).get('goal-time-limit/1')!.closed!)).toEqual([]);
    // Time is decided by durable timers, started with the goal and due by its time limit.
    const timers = timersStarted(rootHistory);
    expect(timers.length).toBeGreaterThan(0);
    expect(Math.max(...timers.map((t) => t.fireMs))).toBeLessThanOrEqual(5_000);
    expect(Math.max(...timers.map((t) => t.eventId))).toBeLessThan(
      childEvents(rootHistory).get('goal-time-limit/1')!.initiated,
    );
    // The log shows the grandchild's end as constrained by time.
    const events = goalEvents(await readGoalTree(h.client, 'goal-time-limit'));
    expect(events.filter((e) => e.goal === SALES).map((e) => e.eventType)).toEqual(['started', 'constrained']);
  });

  it('token limit: children get slices of what their parent has left; a spent slice stops a goal, and its parent', async () => {
    const GOAL = 'Summarise three papers';
    const [P1, P2] = ['Summarise paper one', 'Summarise paper two'];
    const router = model({
      [GOAL]: { assessment: [assess.decompose()], decomposition: [decomposition(P1, P2)] },
      [P1]: { assessment: [assess.answer()] },
      [P2]: { assessment: [assess.answer()] },
    });

    // 2 root calls use 220 tokens; 80 are left, of which each child gets (80 × 0.8) / 2 = 32.
    const { result } = await h.pursue({ goal: GOAL, maxTokens: 300, tools: [] });

    h.fake.assertDone();
    router.assertDone();
    expect(result).toMatchObject({ status: 'constrained', constraint: 'tokens', goals: 3 });
    expect(result!.reason).toMatch(/^Token limit \(300 for the tree\) reached/);
    expect(result!.usage.totalTokens).toBe(4 * FAKE_USAGE.total_tokens);
    expect(result!.children.map((c) => [c.status, c.constraint, c.usage.totalTokens])).toEqual([
      ['constrained', 'tokens', FAKE_USAGE.total_tokens],
      ['constrained', 'tokens', FAKE_USAGE.total_tokens],
    ]);
  });

  it("agent: the tree's tool loops run as the named agent, with its instructions and its tools", async () => {
    const GOAL = 'Move Bob Martin to Globex';
    const router = model({
      [GOAL]: { assessment: [assess.tools()], agent: [{ content: 'Done: Bob Martin works at Globex now.' }] },
    });

    const { handle, result } = await h.pursue({ goal: GOAL, agent: 'back-office' });

    h.fake.assertDone();
    router.assertDone();
    expect(result).toMatchObject({ status: 'achieved', report: { summary: 'Done: Bob Martin works at Globex now.' } });
    const loop = router.requests(GOAL, 'agent')[0];
    expect(loop.messages[0].content).toMatch(/^You are a back-office assistant/);
    expect(loop.tools!.map((t) => t.function.name).sort()).toEqual(
      [
        'search_users',
        'get_user',
        'update_user',
        'resolve_holiday',
        'resolve_date_hint',
        'get_availability',
        'calculator',
        'task_complete',
        'ask_question',
      ].sort(),
    );
    // The tool loop's input, as the Web UI shows it, names the agent.
    const started = (await h.client.workflow.getHandle(`${handle.workflowId}/exec`).fetchHistory()).events![0]
      .workflowExecutionStartedEventAttributes!;
    expect(started.workflowType!.name).toBe('agentLoop');
    expect(defaultPayloadConverter.fromPayload(started.input!.payloads![0])).toMatchObject({
      agent: 'back-office',
      goal: expect.stringContaining(GOAL),
    });
  });

  it('a dependency cycle among sub-goals: they run one after another and the result says why in its limitations', async () => {
    const GOAL = 'Prepare the board meeting';
    const [SLIDES, NOTES] = ['Draft the slides', 'Write the speaker notes'];
    const router = model({
      [GOAL]: {
        assessment: [assess.decompose()],
        decomposition: [decomposition([SLIDES, [1]], [NOTES, [0]])],
        achievement: [achievement(false, ['rehearsal']), achievement(true)],
        synthesis: [synthesis('Slides and notes are ready.')],
      },
      [SLIDES]: { assessment: [assess.answer()], synthesis: [synthesis('Ten slides.')] },
      [NOTES]: { assessment: [assess.answer()], synthesis: [synthesis('Notes for each slide.')] },
    });

    const { handle, result } = await h.pursue({ goal: GOAL, tools: [] });

    h.fake.assertDone();
    router.assertDone();
    expect(result).toMatchObject({ status: 'achieved', report: { summary: 'Slides and notes are ready.' } });
    expect(result!.report.limitations).toContain(
      'Dependency cycle among sub-goals 0, 1: the sub-goals ran one after another.',
    );
    // One after another: the second child started after the first had closed.
    const children = childEvents(await handle.fetchHistory());
    expect(children.get(`${handle.workflowId}/2`)!.initiated).toBeGreaterThan(
      children.get(`${handle.workflowId}/1`)!.closed!,
    );
  });

  it("cost limit: with a priced model, the tree stops when its children's slices of maxCostUsd are spent", async () => {
    const GOAL = 'Review the supplier agreements';
    const [C1, C2] = ['Summarise the Acme contract', 'Summarise the Globex contract'];
    const router = model({
      [GOAL]: { assessment: [assess.decompose()], decomposition: [decomposition(C1, C2)] },
      [C1]: { assessment: [assess.answer()] },
      [C2]: { assessment: [assess.answer()] },
    });
    // gpt-4o-mini: 100 prompt and 10 completion tokens cost $0.000021 a call. The root's two calls
    // leave $0.000008 of $0.00005; each child gets a slice of it, which its first call overspends.
    const { result } = await h.pursue({
      goal: GOAL,
      model: 'gpt-4o-mini',
      maxCostUsd: 0.00005,
      tools: [],
    });

    h.fake.assertDone();
    router.assertDone();
    expect(result).toMatchObject({ status: 'constrained', constraint: 'cost', goals: 3 });
    expect(result!.reason).toMatch(/^Cost limit \(\$0\.00005 for the tree\) reached/);
    expect(result!.children.map((c) => [c.status, c.constraint])).toEqual([
      ['constrained', 'cost'],
      ['constrained', 'cost'],
    ]);
    expect(result!.costUsd).toBeCloseTo(4 * 0.000021, 9);
    expect(h.fake.requests.every((r) => r.model === 'gpt-4o-mini')).toBe(true);
  });

  it("token limit reaching a tool loop: the loop's budget is what its goal has left; it stops with what it found and the goal is constrained", async () => {
    const GOAL = 'Add up the invoices';
    const add = (expression: string) => ({ toolCalls: [{ name: 'calculator', args: { expression } }] });
    const router = model({
      [GOAL]: {
        assessment: [assess.tools()],
        agent: [add('1 + 1'), add('2 + 2'), add('3 + 3'), { content: 'So far: 2, 4 and 6.' }],
      },
    });

    // The assessment uses 110 of 500 tokens: the loop gets 390, room for three calls of 110, then its wrap-up call.
    const { handle, result } = await h.pursue(
      { goal: GOAL, maxTokens: 500, tools: ['calculator'] },
      { workflowId: 'goal-loop-budgets' },
    );
    await recordHistory('goal-loop-budgets', handle);

    h.fake.assertDone();
    router.assertDone();
    const loop = h.client.workflow.getHandle(`${handle.workflowId}/exec`);
    expect(await loop.result()).toMatchObject({
      status: 'budget_exhausted',
      iterations: 3,
      answer: 'So far: 2, 4 and 6.',
    });
    expect(result).toMatchObject({
      status: 'constrained',
      constraint: 'tokens',
      report: { summary: 'So far: 2, 4 and 6.' },
    });
    expect(result!.reason).toMatch(
      /^Token limit \(500 for the tree\) reached.*: the tool loop stopped after 3 iterations$/,
    );
    expect(result!.report.key_findings).toEqual(
      ['1 + 1', '2 + 2', '3 + 3'].map((e, i) => `calculator({"expression":"${e}"}) → ${2 * (i + 1)}`),
    );
    expect(result!.usage.totalTokens).toBe(5 * FAKE_USAGE.total_tokens);
  });

  it('time limit reaching a tool loop: the loop ends at its soft deadline with an answer; the goal is constrained by time, not failed', async () => {
    const GOAL = 'Check every supplier contract';
    // The loop's soft deadline keeps at least 5 s back from its timeout: with 3 s in all it wraps up at once.
    const router = model({
      [GOAL]: { assessment: [assess.tools()], agent: [{ content: 'No contract checked yet.' }] },
    });

    const { handle, result } = await h.pursue({
      goal: GOAL,
      timeoutSeconds: 3,
      tools: ['calculator'],
    });

    h.fake.assertDone();
    router.assertDone();
    expect(await h.client.workflow.getHandle(`${handle.workflowId}/exec`).result()).toMatchObject({
      status: 'deadline',
      iterations: 0,
    });
    expect(result).toMatchObject({
      status: 'constrained',
      constraint: 'time',
      report: { summary: 'No contract checked yet.' },
    });
    expect(result!.reason).toMatch(/^Time limit \(3s\) reached: the tool loop stopped after 0 iterations$/);
  });

  it('cycle detection: a sub-goal nearly the same as a goal on its stack is cycle_detected and never started', async () => {
    const GOAL = 'Write a report on solar power';
    const DATA = 'Gather recent data on solar panel efficiency';
    const router = model({
      [GOAL]: {
        assessment: [assess.decompose()],
        decomposition: [decomposition('Write a report about Solar Power.', DATA)],
        achievement: [achievement(false)],
        synthesis: [synthesis('Panels reach 23% efficiency.')],
      },
      [DATA]: { assessment: [assess.answer()], synthesis: [synthesis('Panels reach 23%.')] },
    });

    const { handle, result } = await h.pursue({ goal: GOAL, tools: [] });

    h.fake.assertDone();
    router.assertDone();
    expect(result!.status).toBe('synthesized');
    const [cycle, data] = result!.children;
    expect(cycle).toMatchObject({ status: 'cycle_detected', goals: 0 });
    expect(cycle.workflowId).toBeUndefined();
    expect(cycle.reason).toMatch(/^Repeats "Write a report on solar power" on its goal stack \(similarity 1\.00\)/);
    expect(data).toMatchObject({ status: 'achieved', workflowId: `${handle.workflowId}/2` });
    expect([...childEvents(await handle.fetchHistory()).keys()]).toEqual([`${handle.workflowId}/2`]);
  });

  it('a child that fails while its siblings succeed is evidence for its parent, not a crash of the tree', async () => {
    const GOAL = 'Check the three services';
    const [API, DB, QUEUE] = ['Check the API', 'Check the database', 'Check the queue'];
    const router = model({
      [GOAL]: {
        assessment: [assess.decompose()],
        decomposition: [decomposition(API, DB, QUEUE)],
        achievement: [achievement(false, ['database unknown'])],
        synthesis: [synthesis('API and queue are fine; the database check failed.')],
      },
      [API]: { assessment: [assess.answer()], synthesis: [synthesis('API is up.')] },
      [DB]: {
        assessment: [assess.tools()],
        agent: [
          { toolCalls: [{ name: 'calculator', args: { expression: '1 + 1' } }] },
          { status: 400, message: 'Invalid schema for function calculator' },
        ],
      },
      [QUEUE]: { assessment: [assess.answer()], synthesis: [synthesis('Queue is empty.')] },
    });

    const { handle, result } = await h.pursue({ goal: GOAL, tools: ['calculator'] });

    h.fake.assertDone();
    router.assertDone();
    expect(result!.status).toBe('synthesized');
    expect(result!.children.map((c) => c.status)).toEqual(['achieved', 'failed', 'achieved']);
    expect(result!.children[1].reason).toMatch(
      /^The tool loop failed: ModelBadRequest: .*Invalid schema for function calculator/,
    );
    // The failed loop's first model call is counted (its assessment, and the call before the refusal), and so in the root's total.
    expect(result!.children.map((c) => c.usage.totalTokens)).toEqual([2, 2, 2].map((n) => n * FAKE_USAGE.total_tokens));
    expect(result!.usage.totalTokens).toBe(10 * FAKE_USAGE.total_tokens);
    expect(result!.report.limitations).toContain('Remaining gap: database unknown');
    expect(prompt(router.requests(GOAL, 'synthesis')[0])).toContain(
      '[failed] Check the database: The tool loop failed',
    );
    expect((await h.client.workflow.getHandle(`${handle.workflowId}/2/exec`).describe()).status.name).toBe('FAILED');
    expect((await h.client.workflow.getHandle(`${handle.workflowId}/2`).describe()).status.name).toBe('COMPLETED');
  });

  it.each([
    ['an empty goal', { goal: '  ' }, /goal: goal must be a non-empty string/],
    ['an unknown field', { goal: 'x', maxDept: 3 }, /maxDept/],
    ['a bad limit', { goal: 'x', maxGoals: 0 }, /maxGoals: maxGoals must be a whole number from 1/],
    ['an old field name', { objective: 'x' }, /objective: `objective` is now `goal`/],
    [
      'the old limits',
      { goal: 'x', constraints: { maxDepth: 3 } },
      /`constraints` is now maxDepth, .* at the top level/,
    ],
    ['an unknown tool', { goal: 'x', tools: ['rm_rf'] }, /Unknown tool "rm_rf"/],
    ['an unknown agent', { goal: 'x', agent: 'nobody' }, /Unknown agent "nobody"/],
  ])('invalid input (%s) fails the tree at once with a non-retryable InvalidInput', async (_name, input, message) => {
    h.fake.script();
    const { error } = await h.pursue(input);

    expect(error).toBeInstanceOf(WorkflowFailedError);
    const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
    expect(cause.type).toBe('InvalidInput');
    expect(cause.nonRetryable).toBe(true);
    expect(cause.message).toMatch(message);
    expect(h.fake.requests).toHaveLength(0);
  });
});
