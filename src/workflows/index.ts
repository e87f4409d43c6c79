export { agentLoop } from './agent-loop';
export { pursueGoal } from './pursue-goal';
