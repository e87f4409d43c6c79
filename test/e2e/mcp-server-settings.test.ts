import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpConnections } from '../../src/mcp';
import { EverythingHttpServer, filesystemServer } from '../mcp/servers';
import { toolMessages } from '../support/fake-model';
import { Harness } from '../support/harness';

/**
 * What an MCP server entry says about how to reach the server does reach it: a stdio server's `env`
 * and `cwd`, a Streamable HTTP server's `headers`. The servers are the reference ones from npm:
 * the everything server (its `get-env` tool answers with its environment) and the filesystem
 * server (a relative allowed directory is resolved against its working directory).
 */
const EVERYTHING_BIN = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

const h = new Harness();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-mcp-cwd-'));
beforeAll(() => h.start());
afterAll(async () => {
  await h.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** One request that reached the server through `HeaderRecorder`. */
interface SeenRequest {
  method: string;
  /** The JSON-RPC method of a POST (`initialize`, `tools/list`, `tools/call`, …). */
  rpc?: string;
  headers: http.IncomingHttpHeaders;
}

/** An HTTP proxy in front of an MCP server that records the headers of every request it relays. */
class HeaderRecorder {
  readonly seen: SeenRequest[] = [];
  private server: http.Server | undefined;

  constructor(private readonly upstream: URL) {}

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}${this.upstream.pathname}`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      const seen: SeenRequest = { method: req.method!, headers: req.headers };
      this.seen.push(seen);
      const forward = http.request(
        {
          host: this.upstream.hostname,
          port: this.upstream.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        try {
          seen.rpc = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { method?: string }).method;
        } catch {
          // not JSON (a GET or a DELETE)
        }
      });
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

describe('MCP server entries reach the server', () => {
  it("stdio env: the server gets the entry's variables, over a minimal environment that leaves out the worker's own", async () => {
    process.env.WAVELOOP_TEST_WORKER_SECRET = 'worker-only';
    let mcp: McpConnections | undefined;
    try {
      mcp = await McpConnections.connect({
        everything: {
          command: process.execPath,
          args: [EVERYTHING_BIN, 'stdio'],
          env: { WAVELOOP_TEST_TENANT: 'acme', HOME: dir },
          tools: ['get-env'],
        },
      });
      h.fake.script({ toolCalls: [{ name: 'everything__get-env', args: {} }] }, { content: 'Read the environment.' });
      const { result } = await h.run({ goal: "Show the server's environment" }, { extraTools: mcp.tools() });

      h.fake.assertDone();
      expect(result!.status).toBe('completed');
      const env = JSON.parse(toolMessages(h.fake.requests[1])[0]) as Record<string, string>;
      expect(env.WAVELOOP_TEST_TENANT).toBe('acme');
      // The entry's value wins over the inherited one.
      expect(env.HOME).toBe(dir);
      expect(env.PATH).toBe(process.env.PATH);
      expect(env).not.toHaveProperty('WAVELOOP_TEST_WORKER_SECRET');
    } finally {
      delete process.env.WAVELOOP_TEST_WORKER_SECRET;
      await mcp?.close();
    }
  });

  it('stdio cwd: the server runs in the entry\'s cwd, so its relative allowed directory "." and a relative path resolve there', async () => {
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'Notes in the working directory.');
    expect(process.cwd()).not.toBe(fs.realpathSync(dir));
    const mcp = await McpConnections.connect({
      files: { ...filesystemServer('.'), cwd: dir, tools: ['list_allowed_directories', 'read_text_file'] },
    });
    try {
      h.fake.script(
        {
          toolCalls: [
            { name: 'files__list_allowed_directories', args: {} },
            { name: 'files__read_text_file', args: { path: 'notes.txt' } },
          ],
        },
        { content: 'Read the notes.' },
      );
      const { result } = await h.run({ goal: 'Read my notes' }, { extraTools: mcp.tools() });

      h.fake.assertDone();
      expect(result!.status).toBe('completed');
      expect(toolMessages(h.fake.requests[1])).toEqual([
        `Allowed directories:\n${fs.realpathSync(dir)}`,
        'Notes in the working directory.',
      ]);
    } finally {
      await mcp.close();
    }
  });

  it("HTTP headers: every request to the server carries the entry's headers: initialize, tools/list and the tool call", async () => {
    const everything = await new EverythingHttpServer().start();
    const recorder = await new HeaderRecorder(new URL(everything.url)).start();
    let mcp: McpConnections | undefined;
    try {
      mcp = await McpConnections.connect({
        everything: {
          url: recorder.url,
          headers: { Authorization: 'Bearer mcp-token', 'X-Tenant': 'acme' },
          tools: ['echo'],
        },
      });
      h.fake.script(
        { toolCalls: [{ name: 'everything__echo', args: { message: 'through the recorder' } }] },
        { content: 'Echoed.' },
      );
      const { result } = await h.run({ goal: 'Echo something' }, { extraTools: mcp.tools() });

      h.fake.assertDone();
      expect(result!.status).toBe('completed');
      expect(toolMessages(h.fake.requests[1])).toEqual(['Echo: through the recorder']);
      expect(recorder.seen.map((request) => request.rpc)).toEqual(
        expect.arrayContaining(['initialize', 'tools/list', 'tools/call']),
      );
      for (const request of recorder.seen) {
        expect(
          [request.method, request.rpc, request.headers.authorization, request.headers['x-tenant']],
          JSON.stringify(request),
        ).toEqual([request.method, request.rpc, 'Bearer mcp-token', 'acme']);
      }
    } finally {
      await mcp?.close();
      await recorder.stop();
      await everything.stop();
    }
  });
});
