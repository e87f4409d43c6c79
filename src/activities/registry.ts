import type { AgentDefinition } from '../agents/define';
import type { AnyTool } from '../tools/define';

/**
 * The tools and agents a worker offers. Names are unique; a duplicate is a programming error and
 * throws when the worker is built, not when a run first meets it.
 */
export class Registry {
  readonly tools: ReadonlyMap<string, AnyTool>;
  readonly agents: ReadonlyMap<string, AgentDefinition>;

  constructor(tools: readonly AnyTool[], agents: readonly AgentDefinition[]) {
    this.tools = uniqueByName('tool', tools);
    this.agents = uniqueByName('agent', agents);
    for (const agent of agents) {
      const unknown = (agent.tools ?? []).filter((name) => !this.tools.has(name));
      if (unknown.length > 0) {
        throw new TypeError(`Agent "${agent.name}" lists tools that are not registered: ${unknown.join(', ')}.`);
      }
      const ruled = Object.keys(agent.requiresApproval ?? {}).filter((name) => !this.tools.has(name));
      if (ruled.length > 0) {
        throw new TypeError(
          `Agent "${agent.name}" has approval rules for tools that are not registered: ${ruled.join(', ')}.`,
        );
      }
    }
  }
}

function uniqueByName<T extends { name: string }>(kind: string, items: readonly T[]): Map<string, T> {
  const byName = new Map<string, T>();
  for (const item of items) {
    if (byName.has(item.name)) throw new TypeError(`Two ${kind}s are named "${item.name}".`);
    byName.set(item.name, item);
  }
  return byName;
}
