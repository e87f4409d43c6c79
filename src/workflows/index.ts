export { agentLoop } from './agent-loop';
export { evalRun } from './eval';
export { pursueGoal } from './goal-tree/pursue-goal';
export { deliverWebhooks } from './deliver-webhooks';
export { undoRun } from './undo';
