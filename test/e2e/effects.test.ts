import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EffectLedger } from '../../src/client/effects';
import type { ToolListing } from '../../src/project/toolset';
import { tokenSha256 } from '../../src/settings';
import {
  cliFixture,
  serveProcess,
  waveloop,
  waveloopLive,
  workerProcess,
  type CliFixture,
  type LiveCommand,
} from '../support/cli';
import { waitForProgress } from '../support/harness';
import { testProject, type TestProject } from '../support/project';
import { eventually } from '../support/wait';

/**
 * Effects end to end (docs/effects.md), on a `waveloop worker` process and a `waveloop serve`
 * process over a project with three tools of its own and the MCP filesystem server (from npm,
 * whose tools carry readOnlyHint, idempotentHint and destructiveHint annotations): the effects
 * `waveloop tools` shows (the config's `effects` over a tool's and a server's word), a destructive
 * MCP tool waiting for approval by default, `waveloop run --effects-to-approve write` holding the
 * write call while the read call runs, and the effect ledger (`waveloop effects`, its JSON, the
 * HTTP route and the run's page) listing exactly the calls that are not read, sensitive values masked.
 */

const FILESYSTEM_BIN = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const CARD = '4111111111111111';
const MASKED = '•••• 1111';
const TOKEN = 'alice-effects-token';

const CONFIG = (dir: string, files: string) => `import * as fs from 'node:fs';
import * as path from 'node:path';
import { defineConfig, defineTool } from 'waveloop';
import { z } from 'zod';

const log = (line: string) => fs.appendFileSync(path.join(${JSON.stringify(dir)}, 'effects.log'), line + '\\n');

export default defineConfig({
  people: [{ name: 'alice', tokenSha256: ${JSON.stringify(tokenSha256(TOKEN))} }],
  tools: [
    defineTool({
      name: 'find_invoice',
      description: 'Finds an invoice.',
      effect: 'read',
      parameters: z.object({ number: z.string() }),
      execute: ({ number }) => { log('find ' + number); return { number, amountUsd: 4000 }; },
    }),
    defineTool({
      name: 'pay_invoice',
      description: 'Pays an invoice with a card.',
      effect: 'write',
      sensitive: ['card'],
      parameters: z.object({ number: z.string(), card: z.string() }),
      execute: ({ number, card }) => { log('pay ' + number + ' ' + card); return 'paid ' + number; },
    }),
    defineTool({
      name: 'note_customer',
      description: 'Adds a note to a customer.',
      parameters: z.object({ text: z.string() }),
      execute: ({ text }) => { log('note ' + text); return 'noted'; },
    }),
  ],
  // note_customer says nothing (write); the filesystem server says create_directory is idempotent.
  effects: { note_customer: 'idempotent', files__create_directory: 'write' },
  mcpServers: { files: { command: process.execPath, args: [${JSON.stringify(FILESYSTEM_BIN)}, ${JSON.stringify(files)}] } },
});
`;

let cli: CliFixture;
let project: TestProject;
let files: string;
let worker: LiveCommand | undefined;
let serve: LiveCommand | undefined;
let url = '';

const cmd = (args: string[]) => waveloop(args, cli.env, { cwd: project.dir });
const get = (route: string, token: string | null = TOKEN) =>
  fetch(`${url}${route}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
const effectsLog = () => {
  const file = path.join(project.dir, 'effects.log');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n') : [];
};

beforeAll(async () => {
  cli = await cliFixture('effects', { worker: false });
  files = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-effects-files-'));
  fs.writeFileSync(path.join(files, 'invoice.txt'), 'INV-2: 4000 USD');
  project = testProject();
  project.write('waveloop.config.ts', CONFIG(project.dir, files));
  worker = await workerProcess(cli.env, { cwd: project.dir });
  ({ serve, url } = await serveProcess(cli.env, { cwd: project.dir }));
});
afterAll(async () => {
  serve?.kill('SIGINT');
  worker?.kill('SIGTERM');
  await Promise.all([serve?.done, worker?.done]);
  project?.remove();
  if (files) fs.rmSync(files, { recursive: true, force: true });
  await cli?.stop();
});

describe('effects', () => {
  it("waveloop tools: each tool's effect, from defineTool, the MCP server's annotations and the config's effects; destructive MCP tools need approval", async () => {
    const out = await cmd(['tools', '--json']);
    expect(out.code, out.stderr).toBe(0);
    const listing = JSON.parse(out.stdout) as ToolListing[];
    const row = (name: string) => {
      const tool = listing.find((t) => t.name === name)!;
      return [tool.effect, tool.requiresApproval];
    };
    expect(row('find_invoice')).toEqual(['read', false]);
    expect(row('pay_invoice')).toEqual(['write', false]);
    expect(row('note_customer')).toEqual(['idempotent', false]); // the config's effects
    expect(row('files__read_text_file')).toEqual(['read', false]); // readOnlyHint
    expect(row('files__write_file')).toEqual(['idempotent', true]); // idempotentHint, destructiveHint
    expect(row('files__edit_file')).toEqual(['write', true]); // destructiveHint
    expect(row('files__create_directory')).toEqual(['write', false]); // idempotentHint, overridden by the config
    expect(row('task_complete')).toEqual(['read', false]);

    const table = await cmd(['tools']);
    const lines = table.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/\s{2,}/));
    expect(lines[0]!.slice(0, 4)).toEqual(['NAME', 'SOURCE', 'EFFECT', 'APPROVAL']);
    expect(lines.find((cells) => cells[0] === 'files__edit_file')!.slice(0, 4)).toEqual([
      'files__edit_file',
      'mcp:files',
      'write',
      'required',
    ]);
  });

  it('the config refuses an unknown effect naming the tool when it loads, and an effect for a tool no server offers when the worker connects', async () => {
    const broken = testProject({
      'waveloop.config.ts': CONFIG(project.dir, files).replace(
        "note_customer: 'idempotent'",
        "note_customer: 'delete'",
      ),
    });
    const unoffered = testProject({
      'waveloop.config.ts': CONFIG(project.dir, files).replace('files__create_directory', 'files__format_disk'),
    });
    try {
      const out = await waveloop(['tools'], cli.env, { cwd: broken.dir });
      expect(out.code).toBe(2);
      expect(out.stderr.trim()).toBe(
        'waveloop.config.ts: effects.note_customer: effect "delete" is not one of "read", "idempotent", "write"',
      );
      // A process: what the worker says names the config file relative to its working directory.
      const missing = await waveloop(['tools'], cli.env, { cwd: unoffered.dir, process: true });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(
        /^waveloop\.config\.ts: effects names "files__format_disk", which no tool or MCP server offers \(tools: find_invoice, /,
      );
    } finally {
      broken.remove();
      unoffered.remove();
    }
  });

  it('a destructive MCP tool waits for approval by default while a read-only one runs; the ledger lists only the write, with who approved it', async () => {
    const id = 'effects-mcp-destructive';
    const target = path.join(files, 'paid.txt');
    cli.fake.script(
      {
        toolCalls: [
          { id: 'call_read', name: 'files__read_text_file', args: { path: path.join(files, 'invoice.txt') } },
          { id: 'call_write', name: 'files__write_file', args: { path: target, content: 'INV-2 paid' } },
        ],
      },
      { content: 'Recorded the payment.' },
    );
    await cli.client.runs.start({ goal: 'Record that INV-2 is paid' }, { workflowId: id });
    const handle = cli.client.runs.handle(id);
    const waiting = await waitForProgress(cli.h.client, handle, (p) => p.pendingApprovals.length > 0);
    expect(waiting.pendingApprovals.map((call) => call.tool)).toEqual(['files__write_file']);
    expect(fs.existsSync(target)).toBe(false);

    const approved = await cmd(['approve', id, 'call_write', '--by', 'alice']);
    expect(approved.code, approved.stderr).toBe(0);
    const result = await cli.client.runs.result(id);
    expect(result).toMatchObject({ status: 'completed', answer: 'Recorded the payment.' });
    expect(fs.readFileSync(target, 'utf8')).toBe('INV-2 paid');

    const ledger = await cmd(['effects', id, '--json']);
    expect(ledger.code, ledger.stderr).toBe(0);
    expect(JSON.parse(ledger.stdout)).toEqual({
      workflowId: id,
      kind: 'agent run',
      effects: [
        {
          workflowId: id,
          iteration: 1,
          callId: 'call_write',
          tool: 'files__write_file',
          effect: 'idempotent',
          undoable: false,
          args: { path: target, content: 'INV-2 paid' },
          ok: true,
          result: `Successfully wrote to ${target}`,
          approvedBy: ['alice'],
        },
      ],
    });
  });

  it('waveloop run --effects-to-approve write: the write call waits while the read and idempotent calls of its wave run; effects, its JSON, the HTTP route and the run page list exactly the calls that are not read, the card masked', async () => {
    const id = 'effects-to-approve-write';
    cli.fake.script(
      {
        toolCalls: [
          { id: 'call_find', name: 'find_invoice', args: { number: 'INV-2' } },
          { id: 'call_pay', name: 'pay_invoice', args: { number: 'INV-2', card: CARD } },
          { id: 'call_note', name: 'note_customer', args: { text: 'pays INV-2' } },
        ],
      },
      { toolCalls: [{ id: 'call_done', name: 'task_complete', args: { result: 'Paid INV-2.' } }] },
    );
    const run = waveloopLive(['run', '--effects-to-approve', 'write', '--id', id, 'Pay INV-2'], cli.env, {
      cwd: project.dir,
    });
    const handle = cli.client.runs.handle(id);
    await eventually(
      () =>
        handle.describe().then(
          () => true,
          () => false,
        ),
      (started) => started,
      { problem: `waveloop run did not start ${id}: ${run.stderr()}` },
    );
    const waiting = await waitForProgress(
      cli.h.client,
      handle,
      (p) => p.pendingApprovals.length > 0 && (p.settling?.calls.length ?? 0) === 2,
    );
    expect(waiting.pendingApprovals.map((call) => [call.tool, call.args])).toEqual([
      ['pay_invoice', { number: 'INV-2', card: MASKED }],
    ]);
    expect(waiting.settling!.calls.map((call) => [call.tool, call.ok])).toEqual([
      ['find_invoice', true],
      ['note_customer', true],
    ]);
    expect(effectsLog()).toEqual(['find INV-2', 'note pays INV-2']);

    const approved = await cmd(['approve', id, 'call_pay', '--by', 'alice']);
    expect(approved.code, approved.stderr).toBe(0);
    const ended = await run.done;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stdout).toContain('Paid INV-2.');
    expect(effectsLog()).toEqual(['find INV-2', 'note pays INV-2', `pay INV-2 ${CARD}`]);

    // waveloop effects: one row per call that is not read, in call order, the card masked.
    const table = await cmd(['effects', id]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).not.toContain(CARD);
    const rows = table.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/\s{2,}/));
    expect(rows).toEqual([
      [`Run ${id}: 2 calls of tools that change something.`],
      ['ITERATION', 'TOOL', 'EFFECT', 'APPROVED BY', 'ARGUMENTS', 'RESULT'],
      ['1', 'pay_invoice', 'write', 'alice', `{"number":"INV-2","card":"${MASKED}"}`, 'paid INV-2'],
      ['1', 'note_customer', 'idempotent', '-', '{"text":"pays INV-2"}', 'noted'],
    ]);

    // --json and the HTTP route: the same ledger.
    const json = await cmd(['effects', id, '--json']);
    expect(json.stdout).not.toContain(CARD);
    const ledger = JSON.parse(json.stdout) as EffectLedger;
    expect(ledger).toEqual({
      workflowId: id,
      kind: 'agent run',
      effects: [
        {
          workflowId: id,
          iteration: 1,
          callId: 'call_pay',
          tool: 'pay_invoice',
          effect: 'write',
          undoable: false,
          args: { number: 'INV-2', card: MASKED },
          ok: true,
          result: 'paid INV-2',
          approvedBy: ['alice'],
        },
        {
          workflowId: id,
          iteration: 1,
          callId: 'call_note',
          tool: 'note_customer',
          effect: 'idempotent',
          undoable: false,
          args: { text: 'pays INV-2' },
          ok: true,
          result: 'noted',
        },
      ],
    });
    const route = await get(`/api/runs/${id}/effects`);
    expect(route.status).toBe(200);
    expect(await route.json()).toEqual(ledger);
    expect((await get(`/api/runs/${id}/effects`, null)).status).toBe(401);
    expect((await get('/api/runs/no-such-run/effects')).status).toBe(404);

    // The run's page: "What this run changed", the two calls, the card masked.
    const page = await (await get(`/runs/${id}`)).text();
    expect(page).toContain('What this run changed');
    expect(page).toContain('data-effects="2"');
    expect(page).not.toContain(CARD);
    expect(page).toContain(MASKED);
  });
});
