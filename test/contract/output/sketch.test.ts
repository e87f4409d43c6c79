import { describe, expect, it } from 'vitest';
import { outputSketch } from '../../../src/contract/output/sketch';

describe('outputSketch', () => {
  it('draws the value a schema asks for, a placeholder where each value goes', () => {
    const invoice = {
      type: 'object',
      properties: {
        supplier: { type: 'string' },
        email: { type: 'string', format: 'email' },
        amount: { type: 'number' },
        currency: { enum: ['EUR', 'USD'] },
        lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] } },
        paid: { anyOf: [{ type: 'boolean' }, { type: 'null' }] },
        kind: { const: 'invoice' },
      },
      required: ['supplier', 'email', 'amount', 'currency', 'lines', 'kind'],
    };
    expect(outputSketch(invoice)).toBe(
      '{"supplier": <string>, "email": <string: email>, "amount": <number>, "currency": <one of "EUR", "USD">, ' +
        '"lines": [{"sku": <string>}, …], "paid": <one of: <boolean> | <null>> (optional), "kind": "invoice"}',
    );
  });

  it('a sketch is not JSON, so a model that copies it does not pass a placeholder off as its answer', () => {
    const sketch = outputSketch({ type: 'object', properties: { result: { type: 'number' } }, required: ['result'] });
    expect(sketch).toBe('{"result": <number>}');
    expect(() => JSON.parse(sketch)).toThrow();
    expect(outputSketch({})).toBe('<any>');
    expect(outputSketch({ type: 'object' })).toBe('<object>');
  });
});
