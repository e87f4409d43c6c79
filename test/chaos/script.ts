import type { ChatRequest, ScriptedReply } from '../support/fake-model';

/**
 * The conversation of chaos run `n`, as a pure function of the request (so a retried model call
 * gets the same reply, and many runs can interleave on one fake model): the goal names the run, and
 * the number of assistant turns so far says where it is.
 *
 *   turn 1 → wave of three: chaos_step(1) ‖ chaos_step(2) ‖ get_user(u)
 *   turn 2 → update_user(u, company "Chaos-n")      (the mutating call; it waits for a person's approval)
 *   turn 3 → chaos_step(3)
 *   turn 4 → the answer, built from what update_user returned
 */
export function chaosGoal(n: number): string {
  return `chaos run ${n}: look user ${chaosUserId(n)} up and move them to Chaos-${n}`;
}

/** The demo user run `n` updates (the demo database has 31 users). */
export function chaosUserId(n: number): number {
  return (n % 31) + 1;
}

/** What run `n` must answer, given the user's name: the same as the script produces without crashes. */
export function expectedAnswer(n: number, name: string): string {
  return `run ${n}: ${name} now works at Chaos-${n} (steps 1, 2, 3 done)`;
}

/** The id of run `n`'s update_user call, which the test approves. */
export function approvalCallId(n: number): string {
  return `call_r${n}_t2_0`;
}

export function chaosReply(request: ChatRequest): ScriptedReply {
  const { n, turn, goal } = whereRunIs(request, /^chaos run (\d+):/);
  if (n === undefined) return { status: 400, message: `fake model: not a chaos goal: ${goal}` };
  const delayMs = modelDelayMs();
  const id = (k: number) => callId(n, turn, k);
  const step = (k: number, s: number) => ({ id: id(k), name: 'chaos_step', args: { run: n, step: s } });
  switch (turn) {
    case 1:
      return {
        delayMs,
        toolCalls: [step(0, 1), step(1, 2), { id: id(2), name: 'get_user', args: { id: chaosUserId(n) } }],
      };
    case 2:
      return {
        delayMs,
        toolCalls: [{ id: id(0), name: 'update_user', args: { id: chaosUserId(n), company: `Chaos-${n}` } }],
      };
    case 3:
      return { delayMs, toolCalls: [step(0, 3)] };
    case 4: {
      const results = request.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
      const updated = JSON.parse(results[3]) as { name: string; company: string };
      const steps = [results[0], results[1], results[4]].every((r) => /^step \d of run \d+ done$/.test(r))
        ? 'steps 1, 2, 3 done'
        : 'a step failed';
      return { delayMs, content: `run ${n}: ${updated.name} now works at ${updated.company} (${steps})` };
    }
    default:
      return { status: 400, message: `fake model: chaos run ${n} has no turn ${turn}` };
  }
}

/**
 * The conversation of many-workers run `n` (test/chaos/many-workers.chaos.ts), a pure function of
 * the request as `chaosReply` is: three waves of chaos_step calls, then the answer.
 *
 *   turn 1 → chaos_step(1) ‖ chaos_step(2) ‖ chaos_step(3)
 *   turn 2 → chaos_step(4) ‖ chaos_step(5)
 *   turn 3 → chaos_step(6)
 *   turn 4 → the answer, built from the six results
 */
export function manyWorkersGoal(n: number): string {
  return `many-workers run ${n}: take six steps in three waves`;
}

const MANY_WORKERS_WAVES = [[1, 2, 3], [4, 5], [6]];

/** What many-workers run `n` must answer: the same as the script produces without crashes. */
export function manyWorkersAnswer(n: number): string {
  return `run ${n}: steps ${MANY_WORKERS_WAVES.flat().join(', ')} done`;
}

export function manyWorkersReply(request: ChatRequest): ScriptedReply {
  const { n, turn, goal } = whereRunIs(request, /^many-workers run (\d+):/);
  if (n === undefined) return { status: 400, message: `fake model: not a many-workers goal: ${goal}` };
  const wave = MANY_WORKERS_WAVES[turn - 1];
  if (wave) {
    return {
      delayMs: modelDelayMs(),
      toolCalls: wave.map((step, k) => ({ id: callId(n, turn, k), name: 'chaos_step', args: { run: n, step } })),
    };
  }
  if (turn !== MANY_WORKERS_WAVES.length + 1)
    return { status: 400, message: `fake model: many-workers run ${n} has no turn ${turn}` };
  // The steps the results report, in the order of the transcript: a lost or doubled result changes the answer.
  const steps = request.messages
    .filter((m) => m.role === 'tool')
    .map((m) => new RegExp(`^step (\\d+) of run ${n} done$`).exec(String(m.content))?.[1] ?? '?');
  return { delayMs: modelDelayMs(), content: `run ${n}: steps ${steps.join(', ')} done` };
}

/** Run `n` as the goal (the first user message) names it, and the turn the request asks for (assistant turns so far + 1). */
function whereRunIs(request: ChatRequest, goalPattern: RegExp): { n?: number; turn: number; goal: string } {
  const goal = request.messages.find((m) => m.role === 'user')?.content ?? '';
  const match = goalPattern.exec(goal);
  const turn = request.messages.filter((m) => m.role === 'assistant').length + 1;
  return { n: match ? Number(match[1]) : undefined, turn, goal };
}

/** A model call takes 0.1 to 0.6 s, so kills land inside some. */
function modelDelayMs(): number {
  return 100 + Math.floor(Math.random() * 500);
}

function callId(n: number, turn: number, k: number): string {
  return `call_r${n}_t${turn}_${k}`;
}
