export { agentLoop } from './agent-loop';
export { pursueGoal } from './goal-tree/pursue-goal';
export { deliverWebhooks } from './deliver-webhooks';
