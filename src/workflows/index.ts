export { agentLoop } from './agent-loop';
