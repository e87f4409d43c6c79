import { describe, expect, it } from 'vitest';
import { checkOutput } from '../../../src/activities/output/check-output';

const schema = {
  type: 'object',
  properties: {
    amount: { type: 'number', minimum: 0 },
    currency: { const: 'EUR' },
    due: { type: 'string', format: 'date' },
    lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] } },
    'unit price': { type: 'integer' },
  },
  required: ['amount', 'currency'],
  additionalProperties: false,
};

describe('checkOutput', () => {
  it('a matching answer is its parsed value', async () => {
    const text = '```json\n{"amount": 3, "currency": "EUR", "due": "2026-12-01", "lines": [{"sku": "A"}]}\n```';
    expect(await checkOutput({ schema, text })).toEqual({
      ok: true,
      value: { amount: 3, currency: 'EUR', due: '2026-12-01', lines: [{ sku: 'A' }] },
    });
  });

  it('says what is wrong, one short line a problem, named from output', async () => {
    const value = { amount: -1, due: 'soon', lines: [{}], 'unit price': 1.5, note: 'x' };
    const checked = await checkOutput({ schema, text: JSON.stringify(value) });
    expect(checked).toEqual({
      ok: false,
      errors: [
        'output.currency: missing',
        'output.note: not allowed',
        'output.amount: must be >= 0',
        'output.due: expected a string of format "date"',
        'output.lines[0].sku: missing',
        'output["unit price"]: expected integer, got number',
      ],
    });
  });

  it('a wrong type names the type it got', async () => {
    expect(await checkOutput({ schema: { type: 'array' }, text: '{"a": 1}' })).toEqual({
      ok: false,
      errors: ['output: expected array, got object'],
    });
  });

  it('an answer that is not JSON is one problem', async () => {
    expect(await checkOutput({ schema, text: 'twelve euros' })).toEqual({
      ok: false,
      errors: [expect.stringMatching(/^output: the final answer is not JSON/)],
    });
  });

  it('a draft-07 schema is read too', async () => {
    const draft7 = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', required: ['a'] };
    expect(await checkOutput({ schema: draft7, text: '{}' })).toEqual({ ok: false, errors: ['output.a: missing'] });
  });
});
