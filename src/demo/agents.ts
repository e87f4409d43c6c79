import { defineAgent } from '../agents/define';
import { DEMO_TOOL_NAMES } from './tool-names';

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
  tools: [...DEMO_TOOL_NAMES, 'task_complete', 'ask_question'],
  maxIterations: 20,
});

/** The demo's agents, registered with the demo toolkit (`defaultAgent` is on every worker). */
export const demoAgents = [backOfficeAgent];
