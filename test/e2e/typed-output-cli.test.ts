import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFixture, waveloop, type CliFixture } from '../support/cli';

const INVOICE = {
  type: 'object',
  properties: { amount: { type: 'number' }, currency: { enum: ['EUR', 'USD'] } },
  required: ['amount', 'currency'],
};

describe('waveloop run --output-schema', () => {
  let cli: CliFixture;
  let schemaFile: string;

  beforeAll(async () => {
    cli = await cliFixture('typed-output');
    schemaFile = path.join(cli.dataDir, 'invoice.json');
    fs.writeFileSync(schemaFile, JSON.stringify(INVOICE));
  });
  afterAll(() => cli.stop());

  it('prints the output as formatted JSON after the answer', async () => {
    cli.fake.script({ content: 'Here it is: {"amount": 12.5, "currency": "EUR"}' });
    const out = await waveloop(['run', '--output-schema', schemaFile, 'Total of invoice 7?'], cli.env);

    cli.fake.assertDone();
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(
      'Here it is: {"amount": 12.5, "currency": "EUR"}\n\nOutput:\n{\n  "amount": 12.5,\n  "currency": "EUR"\n}\n',
    );
    expect(String(cli.fake.requests[0].messages[0].content)).toContain(JSON.stringify(INVOICE));
  });

  it('--json: the result object has the output, after a repair turn', async () => {
    cli.fake.script({ content: '{"amount": "lots"}' }, { content: '{"amount": 12.5, "currency": "USD"}' });
    const out = await waveloop(['run', '--json', '--output-schema', schemaFile, 'Total of invoice 7?'], cli.env);

    cli.fake.assertDone();
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({
      status: 'completed',
      answer: '{"amount": 12.5, "currency": "USD"}',
      output: { amount: 12.5, currency: 'USD' },
    });
    expect(cli.fake.requests[1].messages.at(-1)).toMatchObject({
      role: 'user',
      content: expect.stringContaining('output.amount: expected number, got string'),
    });
  });

  it.each([
    [
      'a missing file',
      () => path.join(cli.dataDir, 'nope.json'),
      /--output-schema: cannot read .*nope\.json: no such file\./,
    ],
    [
      'a file that is not JSON',
      () => written('broken.json', '{"type": "object",'),
      /--output-schema: .*broken\.json is not JSON/,
    ],
    ['a JSON array', () => written('array.json', '[]'), /must be a JSON Schema object/],
    [
      'a schema ajv cannot compile',
      () => written('bad.json', '{"type": "invoice"}'),
      /bad\.json: the output schema is not a valid JSON Schema/,
    ],
  ])('%s is refused at once with exit status 2, and no run starts', async (_name, file, message) => {
    cli.fake.script();
    const out = await waveloop(['run', '--output-schema', file(), 'Total of invoice 7?'], cli.env);

    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(message);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(cli.fake.requests).toHaveLength(0);
  });

  function written(name: string, text: string): string {
    const file = path.join(cli.dataDir, name);
    fs.writeFileSync(file, text);
    return file;
  }
});
