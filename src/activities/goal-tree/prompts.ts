import type {
  AnswerInput,
  AssessInput,
  DecomposeInput,
  GoalContextInput,
  ResultsInput,
} from '../../contract/goal-tree/pursue-goal';
import { formatEvidence } from '../../contract/goal-tree/text';

/**
 * The prompts of the goal tree's components. Every user message starts with `GOAL: <goal>` and shows
 * the goal of the whole tree, the goal stack and the evidence, so no decision loses the context.
 */

export type PromptMessage = { role: 'system' | 'user' | 'assistant'; content: string };

const SYSTEM =
  'You are one step of a recursive goal-pursuing agent. Goals are decomposed into sub-goals until each can be ' +
  'executed directly. Reply with one JSON object that matches the given JSON Schema, and nothing else.';

export function assessPrompt(input: AssessInput, capabilities: string): PromptMessage[] {
  return messages(input, capabilities, [
    'Can this goal be executed directly (one concrete action: a few tool calls, or an answer from what is known)?',
    'Or does it need to be broken into smaller goals?',
    input.canDecompose
      ? 'A goal that seems complex in isolation may be simple given the evidence.'
      : 'Decomposition is NOT possible here (depth or goal limit): execute the goal directly if at all possible.',
    'If executable, set action.kind to "use_tools" when it needs the capabilities, or "answer" when it does not.',
  ]);
}

export function decomposePrompt(input: DecomposeInput, capabilities: string): PromptMessage[] {
  return messages(input, capabilities, [
    ...(input.rationale ? [`WHY DECOMPOSITION IS NEEDED: ${input.rationale}`, ''] : []),
    ...(input.others?.length
      ? [
          'OTHER GOALS ALREADY IN THE TREE (pursued elsewhere; do not plan them again):',
          ...input.others.map((goal) => `- ${goal}`),
          '',
        ]
      : []),
    'Break this goal into sub-goals that:',
    '1. together fully address the goal;',
    '2. are as independent as possible (independent sub-goals run in parallel);',
    '3. are appropriately sized;',
    '4. do not duplicate the goal stack, the evidence or the other goals in the tree.',
    '`dependencies` lists the 0-based indices of earlier sub-goals whose results a sub-goal needs.',
  ]);
}

export function achievedPrompt(input: ResultsInput, capabilities: string): PromptMessage[] {
  return messages(input, capabilities, [
    `RESULTS OF THE SUB-GOALS SO FAR:\n${formatEvidence(input.results)}`,
    'Has this goal been sufficiently achieved? Consider: is there enough evidence, are there obvious gaps,',
    'would further work add significant value?',
  ]);
}

export function synthesizePrompt(input: ResultsInput, capabilities: string): PromptMessage[] {
  return messages(input, capabilities, [
    `RESULTS OF THE SUB-GOALS:\n${formatEvidence(input.results)}`,
    'Synthesize these results into a coherent response to the goal. Highlight key findings, note contradictions',
    'and failed sub-goals, and state your confidence (0 to 1). Quote the facts that back the findings, as the',
    'results state them, in raw_evidence.',
  ]);
}

export function answerPrompt(input: AnswerInput, capabilities: string): PromptMessage[] {
  return messages(input, capabilities, [
    `ACTION: ${input.action}`,
    'Carry out the action by answering from what you know and the evidence. Put the answer in `summary`.',
  ]);
}

function messages(input: GoalContextInput, capabilities: string, task: string[]): PromptMessage[] {
  const user = [
    `GOAL: ${input.goal}`,
    '',
    'CONTEXT:',
    `- The goal of the whole tree: ${input.rootGoal}`,
    `- Goal stack (root first): ${input.stack.length ? input.stack.map((g) => JSON.stringify(g)).join(' > ') : '(this is the root goal)'}`,
    `- Current depth: ${input.stack.length}`,
    `- Evidence so far:\n${formatEvidence(input.evidence)}`,
    `- Available capabilities:\n${capabilities}`,
    '',
    ...task,
  ].join('\n');
  const result: PromptMessage[] = [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: user },
  ];
  if (input.repair) {
    result.push(
      { role: 'assistant', content: input.repair.reply },
      {
        role: 'user',
        content: `Your reply did not match the schema: ${input.repair.error}\nReply again with only the corrected JSON object.`,
      },
    );
  }
  return result;
}
