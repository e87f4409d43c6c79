export { agentLoop } from './agent-loop';
export { pursueGoal } from './goal-tree/pursue-goal';
