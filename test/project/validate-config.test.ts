import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { validateProjectConfig, type ReservedNames } from '../../src/project/validate-config';
import { defineTool } from '../../src/tools/define';

const reserved: ReservedNames = {
  builtinTools: ['task_complete', 'ask_question', 'converse'],
  demoTools: ['get_user'],
  demoAgents: ['back-office'],
};

const tool = (name: string) =>
  defineTool({ name, description: `Tool ${name}.`, parameters: z.object({ id: z.string() }), execute: ({ id }) => id });
const agent = (name: string, tools?: string[]) => defineAgent({ name, system: 'You help.', tools });
const problemOf = (exported: unknown) => {
  const validated = validateProjectConfig(exported, reserved);
  return 'problem' in validated ? validated.problem : undefined;
};

describe('validateProjectConfig', () => {
  it('a valid config gets its defaults: no demo, no MCP servers', () => {
    const validated = validateProjectConfig(
      { tools: [tool('get_invoice')], agents: [agent('billing', ['get_invoice', 'task_complete'])] },
      reserved,
    );
    expect('config' in validated && validated.config).toMatchObject({
      demo: false,
      mcpServers: {},
      agents: [{ name: 'billing' }],
    });
  });

  it('two tools with one name, or a name the worker offers already, are refused', () => {
    expect(problemOf({ tools: [tool('a'), tool('a')] })).toBe('two tools are named "a"');
    expect(problemOf({ tools: [tool('task_complete')] })).toBe(
      'two tools are named "task_complete" (it is a built-in tool)',
    );
    expect(problemOf({ tools: [tool('get_user')], demo: true })).toBe(
      'two tools are named "get_user" (it is a demo tool, demo: true)',
    );
    expect(problemOf({ tools: [tool('get_user')] })).toBeUndefined();
    expect(problemOf({ agents: [agent('x'), agent('x')] })).toBe('two agents are named "x"');
    expect(problemOf({ agents: [agent('back-office')], demo: true })).toBe('two agents are named "back-office"');
  });

  it('a tool name the model API would refuse is refused, with the rule', () => {
    const bad = { name: 'get invoice', description: 'x', parameters: z.object({}), execute: () => 1 };
    expect(problemOf({ tools: [bad] })).toMatch(
      /^tools\.0\.name: a tool name may have only letters, digits, _ and -, at most 64/,
    );
    expect(problemOf({ tools: [{ ...bad, name: 'x'.repeat(65) }] })).toMatch(/^tools\.0\.name: /);
  });

  it('a tool without a zod object schema or an execute function is refused; so is a misspelt option', () => {
    expect(
      problemOf({ tools: [{ name: 'a', description: 'x', parameters: { type: 'object' }, execute: () => 1 }] }),
    ).toBe('tools.0.parameters: parameters must be a zod object schema, z.object({ … })');
    expect(problemOf({ tools: [{ name: 'a', description: 'x', parameters: z.object({}) }] })).toBe(
      'tools.0.execute: execute must be a function',
    );
    expect(problemOf({ tools: [{ ...tool('a'), toolsToApprove: true }] })).toMatch(
      /^tools\.0: Unrecognized key: "toolsToApprove"/,
    );
  });

  it('an agent naming a tool nobody offers is refused, with the tools there are; a tool of a configured MCP server is accepted', () => {
    expect(problemOf({ tools: [tool('get_invoice')], agents: [agent('billing', ['get_invoce'])] })).toBe(
      'agent "billing" names the tool "get_invoce", which is not offered (tools: task_complete, ask_question, converse, get_invoice)',
    );
    const servers = { files: { command: 'npx', args: ['server'] } };
    expect(problemOf({ agents: [agent('clerk', ['files__read_text_file'])], mcpServers: servers })).toBeUndefined();
    expect(problemOf({ agents: [agent('clerk', ['web__fetch'])], mcpServers: servers })).toMatch(
      /names the tool "web__fetch", which is not offered .*MCP servers files\)$/,
    );
  });

  it('an MCP server without command or url, or with both, is refused', () => {
    expect(problemOf({ mcpServers: { files: { args: ['x'] } } })).toMatch(
      /^mcpServers\.files: an MCP server needs either "command" \(stdio\) or "url" \(Streamable HTTP\)/,
    );
    expect(problemOf({ mcpServers: { files: { command: 'npx', url: 'http://127.0.0.1:3001/mcp' } } })).toMatch(
      /not both/,
    );
  });

  it('what is not an object is refused, saying what to export', () => {
    expect(problemOf(undefined)).toMatch(/export default defineConfig/);
    expect(problemOf({ tool: [] })).toMatch(/Unrecognized key: "tool"/);
  });
});

describe('validateProjectConfig: approval rules', () => {
  it('a rule is true, false or a function; an agent rules only tools that are offered', () => {
    const pay = { ...tool('pay'), requiresApproval: ({ id }: { id: string }) => id === 'big' && 'a big one' };
    expect(problemOf({ tools: [pay], agents: [{ ...agent('clerk'), requiresApproval: { pay: false } }] })).toBe(
      undefined,
    );
    expect(problemOf({ tools: [{ ...tool('pay'), requiresApproval: 'yes' }] })).toMatch(
      /^tools\.0\.requiresApproval: requiresApproval must be true, false, \{ approvers\?, quorum\?, fourEyes\?, reason\? \} or a function/,
    );
    expect(problemOf({ tools: [pay], agents: [{ ...agent('clerk'), requiresApproval: { wire: true } }] })).toMatch(
      /^agent "clerk" has an approval rule for the tool "wire", which is not offered/,
    );
    expect(problemOf({ tools: [{ ...tool('pay'), onApprovalTimeout: 'maybe' }] })).toMatch(
      /^tools\.0\.onApprovalTimeout: /,
    );
  });

  it("an agent's modelRpm is a positive number of model calls a minute", () => {
    const limited = (modelRpm: unknown) => ({ agents: [{ ...agent('clerk'), modelRpm }] });
    expect(problemOf(limited(30))).toBeUndefined();
    expect(problemOf(limited(0))).toMatch(/^agents\.0\.modelRpm: modelRpm must be a number more than 0/);
    expect(problemOf(limited('fast'))).toMatch(/modelRpm must be a number more than 0/);
  });

  it("an agent's maxParallelTools is a whole number of at least 1, as a run's is", () => {
    const narrow = (maxParallelTools: unknown) => ({ agents: [{ ...agent('clerk'), maxParallelTools }] });
    expect(problemOf(narrow(4))).toBe(undefined);
    expect(problemOf(narrow(0))).toMatch(
      /^agents\.0\.maxParallelTools: maxParallelTools must be a whole number from 1/,
    );
    expect(problemOf(narrow(1.5))).toMatch(/maxParallelTools must be a whole number/);
  });

  it('an old name in an agent, a tool or an MCP server is refused with its new name', () => {
    expect(problemOf({ agents: [{ ...agent('clerk'), limits: { maxIterations: 3 } }] })).toMatch(
      /^agents\.0\.limits: `limits` is now the same fields at the top level of the agent/,
    );
    expect(problemOf({ tools: [{ ...tool('pay'), timeoutMs: 1_000 }] })).toMatch(
      /^tools\.0\.timeoutMs: `timeoutMs` is now `timeoutSeconds`/,
    );
    expect(problemOf({ tools: [{ ...tool('pay'), retry: { initialIntervalMs: 5 } }] })).toMatch(
      /`initialIntervalMs` is now `initialIntervalSeconds`/,
    );
    expect(problemOf({ mcpServers: { files: { command: 'npx', requireApproval: ['write_file'] } } })).toMatch(
      /`requireApproval` is now `toolsToApprove`/,
    );
  });
});

describe('validateProjectConfig: effects', () => {
  it("a tool's effect and the config's effects are read, idempotent or write; anything else is refused naming the tool", () => {
    const validated = validateProjectConfig(
      {
        tools: [{ ...tool('pay_invoice'), effect: 'write' }],
        effects: { pay_invoice: 'idempotent', files__write_file: 'write' },
        mcpServers: { files: { command: 'npx' } },
      },
      reserved,
    );
    expect('config' in validated && validated.config.effects).toEqual({
      pay_invoice: 'idempotent',
      files__write_file: 'write',
    });
    expect(problemOf({ tools: [{ ...tool('pay_invoice'), effect: 'delete' }] })).toBe(
      'tools.0.effect: tool "pay_invoice": effect "delete" is not one of "read", "idempotent", "write"',
    );
    expect(problemOf({ tools: [tool('pay_invoice')], effects: { pay_invoice: 'readonly' } })).toBe(
      'effects.pay_invoice: effect "readonly" is not one of "read", "idempotent", "write"',
    );
  });

  it("effects naming a tool nobody offers is refused; an MCP server's tool is checked when the worker connects", () => {
    expect(problemOf({ tools: [tool('pay_invoice')], effects: { pay_invoce: 'write' } })).toBe(
      'effects names the tool "pay_invoce", which is not offered (tools: task_complete, ask_question, converse, pay_invoice)',
    );
    expect(problemOf({ effects: { get_user: 'read' }, demo: true })).toBeUndefined();
    expect(
      problemOf({ effects: { files__anything: 'read' }, mcpServers: { files: { command: 'npx' } } }),
    ).toBeUndefined();
  });

  it('reconcile and dryRun are functions', () => {
    expect(problemOf({ tools: [{ ...tool('pay_invoice'), reconcile: () => undefined, dryRun: () => 'held' }] })).toBe(
      undefined,
    );
    expect(problemOf({ tools: [{ ...tool('pay_invoice'), reconcile: true }] })).toBe(
      'tools.0.reconcile: reconcile must be a function',
    );
  });
});
