import type { Achievement, Assessment, Decomposition, Synthesis } from '../../src/contract/goal-tree/pursue-goal';
import type { ChatRequest, ScriptedReply, ScriptStep } from './fake-model';

/**
 * Scripts the fake model for goal trees. Parallel sub-goals make the order of model calls
 * nondeterministic, so replies are routed by what was asked: the goal (the `GOAL:` line of a
 * component prompt, or the first line of a tool loop's goal) and the component (the
 * `response_format` schema name, or `agent` for a tool loop). Each goal's replies per component are
 * used in order; the steps are as many as the replies, so the fake's own checks stay strict: a
 * request no reply is scripted for throws (failing the test with its goal and component), and a
 * reply never requested leaves a step unused.
 */

export type Component = 'assessment' | 'decomposition' | 'achievement' | 'synthesis' | 'output' | 'agent';
export type Reply = ScriptedReply | ((request: ChatRequest) => ScriptedReply);

export type GoalScript = Record<string, Partial<Record<Component, Reply[]>>>;

export interface GoalRouter {
  steps: ScriptStep[];
  /** Requests by goal and component, in the order they came. */
  requests(goal: string, component: Component): ChatRequest[];
  /** Throws if a request found no reply or a scripted reply was never used, naming the goals and components. */
  assertDone(): void;
}

export function goalModel(script: GoalScript): GoalRouter {
  const queues = new Map<string, Reply[]>();
  const seen = new Map<string, ChatRequest[]>();
  const unexpected: string[] = [];
  let total = 0;
  for (const [goal, components] of Object.entries(script)) {
    for (const [component, replies] of Object.entries(components)) {
      queues.set(key(goal, component as Component), [...replies!]);
      total += replies!.length;
    }
  }
  const route = (request: ChatRequest): ScriptedReply => {
    const { goal, component } = classify(request);
    const k = key(goal, component);
    seen.set(k, [...(seen.get(k) ?? []), request]);
    const reply = queues.get(k)?.shift();
    if (!reply) {
      unexpected.push(k);
      // The fake records it, answers 500, and fails the test with this message.
      throw new Error(`goal model: no reply scripted for ${k}`);
    }
    return typeof reply === 'function' ? reply(request) : reply;
  };
  return {
    steps: Array.from({ length: total }, () => route),
    requests: (goal, component) => seen.get(key(goal, component)) ?? [],
    assertDone() {
      if (unexpected.length) throw new Error(`Unscripted model calls: ${unexpected.join('; ')}`);
      const left = [...queues.entries()].filter(([, q]) => q.length > 0).map(([k, q]) => `${k} (${q.length})`);
      if (left.length) throw new Error(`Scripted replies never requested: ${left.join('; ')}`);
    },
  };
}

export function classify(request: ChatRequest): { goal: string; component: Component } {
  const user = String(request.messages.find((m) => m.role === 'user')?.content ?? '');
  const name = request.response_format?.json_schema?.name as Component | undefined;
  if (name) return { goal: /^GOAL: (.*)$/m.exec(user)?.[1] ?? '', component: name };
  return { goal: user.split('\n')[0], component: 'agent' };
}

/** The text of the user message of a request (the prompt a component saw). */
export function prompt(request: ChatRequest): string {
  return request.messages
    .filter((m) => m.role === 'user')
    .map((m) => String(m.content))
    .join('\n');
}

const json = (value: unknown): ScriptedReply => ({ content: JSON.stringify(value) });

/** An assessment: executable by a direct answer, by the tools, or in need of decomposition. */
export const assess = {
  answer: (description = 'answer from knowledge'): ScriptedReply =>
    json({
      directly_executable: true,
      reasoning: 'simple',
      action: { kind: 'answer', description },
    } satisfies Assessment),
  tools: (description = 'use the tools'): ScriptedReply =>
    json({
      directly_executable: true,
      reasoning: 'needs tools',
      action: { kind: 'use_tools', description },
    } satisfies Assessment),
  decompose: (): ScriptedReply =>
    json({
      directly_executable: false,
      reasoning: 'too broad',
      decomposition_needed_because: 'several parts',
    } satisfies Assessment),
};

/** A decomposition: each sub-goal as its description, or `[description, dependencies]`. */
export function decomposition(...subGoals: Array<string | [string, number[]]>): ScriptedReply {
  return json({
    sub_goals: subGoals.map((s) => {
      const [description, dependencies] = typeof s === 'string' ? [s, []] : s;
      return { description, rationale: 'part of the goal', dependencies, estimated_complexity: 'simple' };
    }),
    coverage: 'all parts',
  } satisfies Decomposition);
}

export function achievement(achieved: boolean, remaining_gaps: string[] = []): ScriptedReply {
  return json({
    achieved,
    confidence: achieved ? 0.9 : 0.4,
    reasoning: achieved ? 'enough' : 'gaps remain',
    remaining_gaps,
  } satisfies Achievement);
}

export function synthesis(
  summary: string,
  key_findings: string[] = [],
  confidence = 0.8,
  raw_evidence?: string[],
): ScriptedReply {
  return json({
    summary,
    key_findings,
    confidence,
    limitations: [],
    ...(raw_evidence ? { raw_evidence } : {}),
  } satisfies Synthesis);
}

function key(goal: string, component: Component): string {
  return `${component} of "${goal}"`;
}
