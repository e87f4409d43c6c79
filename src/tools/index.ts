import type { AnyTool } from './define';
import type { DemoDeps } from './demo-db';
import { calculatorTool } from './calculator';
import { getAvailabilityTool } from './get-availability';
import { getUserTool } from './get-user';
import { resolveDateHintTool } from './resolve-date-hint';
import { resolveHolidayTool } from './resolve-holiday';
import { searchUsersTool } from './search-users';
import { taskCompleteTool } from './task-complete';
import { askQuestionTool } from './ask-question';
import { converseTool } from './converse';
import { updateUserTool } from './update-user';

export { defineTool } from './define';
export type { AnyTool, ToolContext, ToolDefinition, ToolRetry } from './define';
export { openDemoDatabase } from './demo-db';
export type { DemoDatabase, DemoDeps, User } from './demo-db';

/**
 * The loop's own tools, on every worker: `task_complete` (ends the run with its answer),
 * `ask_question` (waits for a person's answer) and `converse` (waits for the next message).
 */
export function builtinTools(): AnyTool[] {
  return [taskCompleteTool(), askQuestionTool(), converseTool()];
}

/** The names of the demo toolkit's tools, known without opening its database. */
export const DEMO_TOOL_NAMES = ['search_users', 'get_user', 'update_user', 'resolve_holiday', 'resolve_date_hint', 'get_availability', 'calculator'];

/** The demo back-office toolkit over the demo database: users, calendar, hotel availability and a calculator. */
export function createDemoTools(deps: DemoDeps): AnyTool[] {
  return [
    searchUsersTool(deps),
    getUserTool(deps),
    updateUserTool(deps),
    resolveHolidayTool(deps),
    resolveDateHintTool(deps),
    getAvailabilityTool(deps),
    calculatorTool(),
  ];
}
