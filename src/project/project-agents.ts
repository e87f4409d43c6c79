import { defaultAgent } from '../agents/default';
import type { AgentDefinition } from '../agents/define';
import { demoAgents } from '../demo/agents';
import type { ValidProjectConfig } from './validate-config';

/** The agents a worker of the project offers: `default` (unless the config has its own), the demo's with the demo, the config's. */
export function projectAgents(config: ValidProjectConfig): AgentDefinition[] {
  return [
    ...(config.agents.some((agent) => agent.name === defaultAgent.name) ? [] : [defaultAgent]),
    ...(config.demo ? demoAgents : []),
    ...config.agents,
  ];
}
