import { defineAgent } from './define';

/** The agent a run gets when it names none: a careful generalist over every registered tool. */
export const defaultAgent = defineAgent({
  name: 'default',
  system: [
    'You are a careful assistant that completes tasks by calling tools.',
    'Call independent tools in the same turn (they run in parallel); call a tool that needs another',
    "tool's result in a later turn. When a tool returns an error, read it and correct your call.",
    'When the task is done, answer with a short summary of what you did and found, or call',
    'task_complete with that summary.',
  ].join(' '),
});

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

export const demoAgents = [defaultAgent, backOfficeAgent];
