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
