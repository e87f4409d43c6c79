import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createDemoTools } from '../../src/tools';
import { taskCompleteTool } from '../../src/tools/task-complete';
import { callTool, makeDemoDeps, type TempDemoDeps } from '../support/tool-context';

let deps: TempDemoDeps;
beforeEach(() => {
  deps = makeDemoDeps();
});
afterEach(() => deps.cleanup());

describe('createDemoTools', () => {
  it('createDemoTools: returns the ten demo tools with unique names', () => {
    expect(createDemoTools(deps).map((tool) => tool.name)).toEqual([
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

  it('createDemoTools: every tool has a description and a JSON Schema with described fields', () => {
    for (const tool of createDemoTools(deps)) {
      expect(tool.description.length).toBeGreaterThan(40);
      const schema = z.toJSONSchema(tool.parameters) as { properties: Record<string, { description?: string }> };
      for (const [field, property] of Object.entries(schema.properties)) {
        expect(property.description, `${tool.name}.${field}`).toBeTruthy();
      }
    }
  });

  it('createDemoTools: task_complete, ask_question and converse break the loop; the last two wait for a person', () => {
    expect(createDemoTools(deps).filter((tool) => tool.loopBreaking).map((tool) => tool.name)).toEqual(['task_complete', 'ask_question', 'converse']);
    expect(createDemoTools(deps).filter((tool) => tool.interaction).map((tool) => tool.name)).toEqual(['ask_question', 'converse']);
    expect(createDemoTools(deps).filter((tool) => tool.requiresApproval).map((tool) => tool.name)).toEqual(['update_user']);
  });
});

describe('task_complete', () => {
  it('task_complete: returns the result as the final answer', async () => {
    const tool = taskCompleteTool();
    expect(await callTool(tool, { result: "Updated Bob Martin's company to EPAM." })).toBe("Updated Bob Martin's company to EPAM.");
    expect(tool.loopBreaking).toBe(true);
    expect(tool.description).toMatch(/final answer/);
  });
});
