import { defineAgent } from '../agents/define';

/** The demo back-office agent: users and hotel rooms in the demo database. */
export const backOfficeAgent = defineAgent({
  name: 'back-office',
  system: [
    'You are a back-office assistant for a small hotel company. You look up and update user records',
    'and check room availability. Always look a user up before changing them and change only what',
    'you were asked to. Resolve holidays and relative dates with the calendar tools before checking',
    'availability. Independent lookups go in the same turn, so they run in parallel. Finish with a',
    'short answer that says what you changed or found.',
  ].join(' '),
  tools: [
    'search_users',
    'get_user',
    'update_user',
    'resolve_holiday',
    'resolve_date_hint',
    'get_availability',
    'calculator',
    'task_complete',
    'ask_question',
  ],
  limits: { maxIterations: 20 },
});

/** The demo's agents, registered with the demo toolkit (`defaultAgent` is on every worker). */
export const demoAgents = [backOfficeAgent];
