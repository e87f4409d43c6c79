import type { AnyTool } from '../tools/define';
import type { DemoDeps } from './demo-db';
import { calculatorTool } from './tools/calculator';
import { getAvailabilityTool } from './tools/get-availability';
import { getUserTool } from './tools/get-user';
import { resolveDateHintTool } from './tools/resolve-date-hint';
import { resolveHolidayTool } from './tools/resolve-holiday';
import { searchUsersTool } from './tools/search-users';
import { updateUserTool } from './tools/update-user';

export { demoAgents } from './agents';
export { openDemoDatabase } from './demo-db';
export { DEMO_TOOL_NAMES } from './tool-names';
export type { DemoDatabase, DemoDeps, User } from './demo-db';

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
