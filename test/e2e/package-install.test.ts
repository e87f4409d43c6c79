import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findTemporalBinary } from '../../src/server/temporal-cli';
import { ROOT } from '../support/cli';
import { FakeModel, toolMessages } from '../support/fake-model';
import { freeServerPort } from '../support/ports';

/**
 * waveloop as a team adds it to a project of its own: the package is packed, installed from the
 * tarball into an empty project outside the repository (which cannot see the repository's
 * node_modules), and the project's own tool and an MCP server's tool run through the installed
 * CLI, on the embedded Temporal server it starts, with the fake model as the endpoint.
 *
 * Installed with `--ignore-scripts`, as teams that block install scripts do (and to keep this test
 * fast): the demo database's native module is not built, so this also shows that a project without
 * the demo does not need it; the Temporal CLI comes from WAVELOOP_TEMPORAL_BIN.
 */

const exec = promisify(execFile);
const TIMEOUT = 180_000;

interface Exec {
  code: number | null;
  stdout: string;
  stderr: string;
}

const CONFIG = (filesDir: string) => `import { defineAgent, defineConfig, defineTool, ToolError } from 'waveloop';
import { z } from 'zod';

const invoices = new Map([['INV-2041', { number: 'INV-2041', customer: 'Initech', paid: false }]]);

const getInvoice = defineTool({
  name: 'get_invoice',
  description: 'Looks up an invoice by its number.',
  parameters: z.object({ number: z.string() }),
  async execute({ number }) {
    const invoice = invoices.get(number);
    if (!invoice) throw new ToolError(\`No invoice \${number}\`);
    return invoice;
  },
});

export default defineConfig({
  tools: [getInvoice],
  agents: [defineAgent({ name: 'billing', system: 'You answer questions about invoices.', tools: ['get_invoice', 'files__read_text_file'] })],
  mcpServers: {
    files: { command: 'npx', args: ['mcp-server-filesystem', ${JSON.stringify(filesDir)}], tools: ['read_text_file', 'list_directory'] },
  },
});
`;

describe('the packed package, installed into a fresh project', () => {
  const fake = new FakeModel();
  let project: string;
  let filesDir: string;
  let env: Record<string, string>;

  /** `npx waveloop …` in the project, as its user types it. */
  const npxWaveloop = (args: string[], cwd = project) =>
    new Promise<Exec>((resolve, reject) => {
      let stdout = '';
      let stderr = '';
      const child = spawn('npx', ['waveloop', ...args], { cwd, env });
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  beforeAll(async () => {
    const temporal = findTemporalBinary();
    if (!temporal) throw new Error('No Temporal CLI: run `node scripts/install-temporal.js`.');
    await fake.start();
    const scratch = fs.mkdtempSync(path.join(memoryBackedDir(), 'waveloop-install-'));
    project = path.join(scratch, 'billing-bot');
    filesDir = path.join(scratch, 'shared-files');
    fs.mkdirSync(project);
    fs.mkdirSync(filesDir);
    fs.writeFileSync(path.join(filesDir, 'notes.txt'), 'INV-2041 was promised for Friday.\n');

    // `npm test` has built dist/; packing without scripts does not build it again.
    const { stdout: packed } = await exec(
      'npm',
      ['pack', '--ignore-scripts', '--silent', '--pack-destination', scratch],
      { cwd: ROOT },
    );
    const tarball = path.join(scratch, packed.trim().split('\n').pop()!);
    const mcpServer = `@modelcontextprotocol/server-filesystem@${readDevVersion('@modelcontextprotocol/server-filesystem')}`;
    fs.writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'billing-bot', version: '1.0.0', private: true }, null, 2),
    );
    await exec(
      'npm',
      ['install', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', tarball, mcpServer],
      { cwd: project },
    );
    fs.writeFileSync(path.join(project, 'waveloop.config.ts'), CONFIG(filesDir));

    env = {
      PATH: process.env.PATH!,
      HOME: process.env.HOME!,
      OPENAI_BASE_URL: fake.baseURL,
      OPENAI_API_KEY: 'test-key',
      WAVELOOP_MODEL: 'fake-model',
      WAVELOOP_TEMPORAL_BIN: temporal,
      WAVELOOP_SERVER_PORT: String(await freeServerPort()),
    };
  }, TIMEOUT);

  afterAll(async () => {
    if (project) await npxWaveloop(['server', 'stop']);
    await fake.stop();
    if (project) fs.rmSync(path.dirname(project), { recursive: true, force: true });
  }, TIMEOUT);

  it('installs as a dependency: the library entry, its types, the bin; no repository files', () => {
    const installed = path.join(project, 'node_modules', 'waveloop');
    const manifest = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    expect(Object.keys(manifest.exports)).toEqual(['.', './workflows', './package.json']);
    expect(fs.existsSync(path.join(installed, 'dist', 'src', 'index.d.ts'))).toBe(true);
    expect(fs.existsSync(path.join(project, 'node_modules', '.bin', 'waveloop'))).toBe(true);
    for (const absent of [
      'test',
      'src',
      'bench',
      'docs',
      path.join('dist', 'test'),
      path.join('dist', 'src', 'index.js.map'),
    ]) {
      expect(fs.existsSync(path.join(installed, absent)), absent).toBe(false);
    }
    // zod comes as waveloop's peer: the project's schemas and waveloop's are one zod.
    expect(fs.existsSync(path.join(project, 'node_modules', 'zod', 'package.json'))).toBe(true);
  });

  it(
    'waveloop tools: the config tool, the MCP server tool, the built-in tools; no demo',
    { timeout: TIMEOUT },
    async () => {
      const out = await npxWaveloop(['tools']);
      // Nothing but npm's own warnings about this machine's npm configuration.
      expect(out.stderr.split('\n').filter((line) => line && !line.startsWith('npm warn'))).toEqual([]);
      expect(out.code).toBe(0);
      const rows = out.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(/\s{2,}/));
      expect(rows[0]).toEqual(['NAME', 'SOURCE', 'EFFECT', 'APPROVAL', 'DESCRIPTION']);
      expect(rows.slice(1).map(([name, source]) => `${name} ${source}`)).toEqual([
        'get_invoice config',
        'files__read_text_file mcp:files',
        'files__list_directory mcp:files',
        'task_complete built-in',
        'ask_question built-in',
        'converse built-in',
      ]);
    },
  );

  it(
    'npx waveloop run: one wave calls the project tool and the MCP tool; the model reads both results',
    { timeout: TIMEOUT },
    async () => {
      const notes = path.join(filesDir, 'notes.txt');
      fake.script(
        {
          toolCalls: [
            { name: 'get_invoice', args: { number: 'INV-2041' } },
            { name: 'files__read_text_file', args: { path: notes } },
          ],
        },
        (request) => ({ content: `Unpaid; ${toolMessages(request)[1]!.trim()}` }),
      );
      const out = await npxWaveloop(['run', '--agent', 'billing', 'Is INV-2041 paid?']);
      expect(out.stderr).toContain('Started the embedded Temporal server');
      expect(out.stderr).toContain('running one in this process');
      expect(out.code).toBe(0);
      expect(out.stdout).toContain(
        'wave 1 · get_invoice(number=INV-2041) → {"number":"INV-2041","customer":"Initech","paid":false}',
      );
      expect(out.stdout).toMatch(/^wave 1 · files__read_text_file\(path=\/.*\) → INV-2041 was promised for Friday\.$/m);
      expect(out.stdout).toContain('Unpaid; INV-2041 was promised for Friday.');
      // The model was offered the MCP server's own JSON Schema for the tool.
      const offered = fake.requests[0]!.tools!.find((tool) => tool.function.name === 'files__read_text_file');
      expect(offered?.function.parameters).toMatchObject({
        type: 'object',
        properties: { path: { type: 'string' } },
        required: ['path'],
      });
    },
  );

  it(
    'npx waveloop init writes a starter config that loads with the installed package',
    { timeout: TIMEOUT },
    async () => {
      const dir = path.join(project, 'starter');
      fs.mkdirSync(dir);
      const init = await npxWaveloop(['init'], dir);
      expect(init.code).toBe(0);
      expect(init.stdout).toContain('npx waveloop run --agent orders "What is the status of order A-1001?"');
      const tools = await npxWaveloop(['tools'], dir);
      expect(tools.code).toBe(0);
      expect(tools.stdout).toMatch(/^get_order\s+config\s+read\s+-\s+Looks up an order/m);
    },
  );
});

function readDevVersion(name: string): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  return manifest.devDependencies[name]!;
}

/**
 * Where the project is installed: a memory-backed folder (/dev/shm) where there is one, else the
 * temporary folder. npm writes the dependencies' 500 MB there; on this machine's disk that took
 * 16 s of system CPU, in memory 4.
 */
function memoryBackedDir(): string {
  try {
    fs.accessSync('/dev/shm', fs.constants.W_OK);
    return '/dev/shm';
  } catch {
    return os.tmpdir();
  }
}
