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

/** The demo back-office toolkit: users, calendar, hotel availability, a calculator and `task_complete`. */
export function createDemoTools(deps: DemoDeps): AnyTool[] {
  return [
    searchUsersTool(deps),
    getUserTool(deps),
    updateUserTool(deps),
    resolveHolidayTool(deps),
    resolveDateHintTool(deps),
    getAvailabilityTool(deps),
    calculatorTool(),
    taskCompleteTool(),
    askQuestionTool(),
    converseTool(),
  ];
}
