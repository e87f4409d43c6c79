import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createDemoTools, DEMO_TOOL_NAMES } from '../../src/demo';
import { builtinTools } from '../../src/tools';
import { taskCompleteTool } from '../../src/tools/task-complete';
import { callTool, makeDemoDeps, type TempDemoDeps } from '../support/tool-context';

let deps: TempDemoDeps;
beforeEach(() => {
  deps = makeDemoDeps();
});
afterEach(() => deps.cleanup());

const everyTool = () => [...createDemoTools(deps), ...builtinTools()];

describe('createDemoTools', () => {
  it('createDemoTools and builtinTools: the seven demo tools and the three loop tools, with unique names', () => {
    expect(everyTool().map((tool) => tool.name)).toEqual([
      'search_users',
      'get_user',
      'update_user',
      'resolve_holiday',
      'resolve_date_hint',
      'get_availability',
      'calculator',
      'task_complete',
      'ask_question',
      'converse',
    ]);
  });

  it('createDemoTools: DEMO_TOOL_NAMES names its tools, in order', () => {
    expect(createDemoTools(deps).map((tool) => tool.name)).toEqual(DEMO_TOOL_NAMES);
  });

  it('createDemoTools: every tool has a description and a JSON Schema with described fields', () => {
    for (const tool of everyTool()) {
      expect(tool.description.length).toBeGreaterThan(40);
      const schema = z.toJSONSchema(tool.parameters) as { properties: Record<string, { description?: string }> };
      for (const [field, property] of Object.entries(schema.properties)) {
        expect(property.description, `${tool.name}.${field}`).toBeTruthy();
      }
    }
  });

  it('createDemoTools: task_complete, ask_question and converse break the loop; the last two wait for a person', () => {
    expect(
      everyTool()
        .filter((tool) => tool.loopBreaking)
        .map((tool) => tool.name),
    ).toEqual(['task_complete', 'ask_question', 'converse']);
    expect(
      everyTool()
        .filter((tool) => tool.interaction)
        .map((tool) => tool.name),
    ).toEqual(['ask_question', 'converse']);
    expect(
      everyTool()
        .filter((tool) => tool.requiresApproval)
        .map((tool) => tool.name),
    ).toEqual(['update_user']);
  });
});

describe('task_complete', () => {
  it('task_complete: returns the result as the final answer', async () => {
    const tool = taskCompleteTool();
    expect(await callTool(tool, { result: "Updated Bob Martin's company to EPAM." })).toBe(
      "Updated Bob Martin's company to EPAM.",
    );
    expect(tool.loopBreaking).toBe(true);
    expect(tool.description).toMatch(/final answer/);
  });
});
