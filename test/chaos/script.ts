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
  const goal = request.messages.find((m) => m.role === 'user')?.content ?? '';
  const match = /^chaos run (\d+):/.exec(goal);
  if (!match) return { status: 400, message: `fake model: not a chaos goal: ${goal}` };
  const n = Number(match[1]);
  const turn = request.messages.filter((m) => m.role === 'assistant').length + 1;
  const delayMs = 100 + Math.floor(Math.random() * 500); // a model call takes a while, so kills land inside some
  const id = (k: number) => `call_r${n}_t${turn}_${k}`;
  const step = (k: number, s: number) => ({ id: id(k), name: 'chaos_step', args: { run: n, step: s } });
  switch (turn) {
    case 1:
      return { delayMs, toolCalls: [step(0, 1), step(1, 2), { id: id(2), name: 'get_user', args: { id: chaosUserId(n) } }] };
    case 2:
      return { delayMs, toolCalls: [{ id: id(0), name: 'update_user', args: { id: chaosUserId(n), company: `Chaos-${n}` } }] };
    case 3:
      return { delayMs, toolCalls: [step(0, 3)] };
    case 4: {
      const results = request.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
      const updated = JSON.parse(results[3]) as { name: string; company: string };
      const steps = [results[0], results[1], results[4]].every((r) => /^step \d of run \d+ done$/.test(r)) ? 'steps 1, 2, 3 done' : 'a step failed';
      return { delayMs, content: `run ${n}: ${updated.name} now works at ${updated.company} (${steps})` };
    }
    default:
      return { status: 400, message: `fake model: chaos run ${n} has no turn ${turn}` };
  }
}
