import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseReply } from '../../../src/activities/goal-tree/components';
import {
  AssessmentSchema,
  DecompositionSchema,
  GOAL_COMPONENT_SCHEMAS,
} from '../../../src/contract/goal-tree/pursue-goal';

describe('goal components', () => {
  it('parseReply: JSON that matches the schema, also inside a ```json fence', () => {
    const reply = { directly_executable: true, reasoning: 'simple', action: { kind: 'answer', description: 'say it' } };
    expect(parseReply(JSON.stringify(reply), AssessmentSchema)).toEqual({ ok: true, value: reply });
    expect(parseReply('```json\n' + JSON.stringify(reply) + '\n```', AssessmentSchema)).toEqual({
      ok: true,
      value: reply,
    });
  });

  it('parseReply: says what is wrong, for the model to read', () => {
    expect(parseReply('Sure!', AssessmentSchema)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^not valid JSON/),
    });
    const wrong = parseReply(
      '{"sub_goals": [{"description": "x", "rationale": "y", "dependencies": [], "estimated_complexity": "huge"}], "coverage": "z"}',
      DecompositionSchema,
    );
    expect(wrong).toMatchObject({ ok: false, error: expect.stringContaining('sub_goals.0.estimated_complexity') });
  });

  it("schemas: every component has a JSON Schema made from zod, with the goal agent's fields required", () => {
    const required = (name: keyof typeof GOAL_COMPONENT_SCHEMAS) =>
      (z.toJSONSchema(GOAL_COMPONENT_SCHEMAS[name]) as { required: string[] }).required;
    expect(required('assessment')).toEqual(['directly_executable', 'reasoning']);
    expect(required('decomposition')).toEqual(['sub_goals', 'coverage']);
    expect(required('achievement')).toEqual(['achieved', 'confidence', 'reasoning', 'remaining_gaps']);
    expect(required('synthesis')).toEqual(['summary', 'key_findings', 'confidence', 'limitations']);
  });
});
