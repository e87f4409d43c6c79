import { z } from 'zod';
import { defineTool, ToolError } from './define';

/**
 * `ask_question`: the run pauses until a person answers (`waveloop answer <id> "…"`), and
 * the answer is the call's result. The workflow handles the call; `execute` never runs.
 */
export function askQuestionTool() {
  return defineTool({
    name: 'ask_question',
    description:
      "Ask the person you work for a question and wait for the answer. Use it when you need information or a decision only they can give; the answer comes back as this call's result.",
    parameters: z.object({ question: z.string().min(1).describe('The question, self-contained') }),
    loopBreaking: true,
    effect: 'read',
    interaction: 'question',
    execute: () => {
      throw new ToolError('ask_question is answered by a person through the workflow, not executed.');
    },
  });
}
