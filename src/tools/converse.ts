import { z } from 'zod';
import { defineTool, ToolError } from './define';

/**
 * `converse`: ends the turn with a message to the person; the run stays open as a
 * conversation and goes on with their next message (`waveloop send <id> "…"`) until `waveloop end`
 * or an idle timeout. The workflow handles the call; `execute` never runs.
 */
export function converseTool() {
  return defineTool({
    name: 'converse',
    description:
      'Send a message to the person you work with and wait for their reply, which comes as their next message. Use it to report, discuss or ask for the next task; the conversation ends when they end it.',
    parameters: z.object({ message: z.string().min(1).describe('Your message to the person') }),
    loopBreaking: true,
    effect: 'read',
    interaction: 'conversation',
    execute: () => {
      throw new ToolError('converse is handled by the workflow, not executed.');
    },
  });
}
