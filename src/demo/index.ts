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
export type { DemoDatabase, DemoDeps, User } from './demo-db';

/** The names of the demo toolkit's tools, known without opening its database. */
export const DEMO_TOOL_NAMES = [
  'search_users',
  'get_user',
  'update_user',
  'resolve_holiday',
  'resolve_date_hint',
  'get_availability',
  'calculator',
];

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
