import { askQuestionTool } from './ask-question';
import { converseTool } from './converse';
import type { AnyTool } from './define';
import { taskCompleteTool } from './task-complete';

export { defineTool, ToolError } from './define';
export type {
  AnyTool,
  ApprovalContext,
  ApprovalRule,
  OnApprovalTimeout,
  ToolContext,
  ToolDefinition,
  ToolRetry,
} from './define';

/**
 * The loop's own tools, on every worker: `task_complete` (ends the run with its answer),
 * `ask_question` (waits for a person's answer) and `converse` (waits for the next message).
 */
export function builtinTools(): AnyTool[] {
  return [taskCompleteTool(), askQuestionTool(), converseTool()];
}
