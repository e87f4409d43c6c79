import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveUpdate } from '../../src/contract/messages';
import { McpConnections } from '../../src/mcp';
import { mcpTool } from '../../src/mcp/mcp-tool';
import { McpServerConnection } from '../../src/mcp/server-connection';
import { ToolError } from '../../src/tools/define';
import { childProcessesMentioning, filesystemServer, isAlive } from '../mcp/servers';
import { toolMessages } from '../support/fake-model';
import { Harness, waitForProgress } from '../support/harness';
import { activities } from '../support/history';
import { callTool } from '../support/tool-context';
import { eventually } from '../support/wait';

const h = new Harness();
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-mcp-files-'));
let mcp: McpConnections;

beforeAll(async () => {
  fs.writeFileSync(path.join(root, 'notes.txt'), 'Buy milk.\nCall Bob.');
  fs.writeFileSync(path.join(root, 'later.txt'), 'Water the plants.');
  [mcp] = await Promise.all([
    McpConnections.connect({ files: filesystemServer(root, { toolsToApprove: ['write_file'] }) }),
    h.start(),
  ]);
});

afterAll(async () => {
  await mcp?.close();
  await h.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('MCP over stdio (the filesystem server)', () => {
  it("read_text_file: the model reads the file, sees the server's own JSON Schema, and the wave reads files__read_text_file(path=…)", async () => {
    const file = path.join(root, 'notes.txt');
    h.fake.script(
      { toolCalls: [{ name: 'files__read_text_file', args: { path: file } }] },
      { content: 'You need to buy milk and call Bob.' },
    );
    const { handle, result } = await h.run({ goal: 'What is in my notes?' }, { extraTools: mcp.tools() });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'You need to buy milk and call Bob.' });
    expect(toolMessages(h.fake.requests[1])).toEqual(['Buy milk.\nCall Bob.']);
    const offered = h.fake.requests[0].tools!.find((tool) => tool.function.name === 'files__read_text_file')!;
    expect(offered.function.parameters).toMatchObject({
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
    });
    expect(offered.function.parameters).toEqual(
      mcp.tools().find((tool) => tool.name === 'files__read_text_file')!.inputSchema,
    );
    const summaries = activities(await handle.fetchHistory()).map((a) => a.summary);
    expect(summaries).toEqual([
      'iteration 1 · model',
      `wave 1 · files__read_text_file(path=${clip(file)})`,
      'iteration 2 · model',
    ]);
  });

  it('write_file (toolsToApprove): nothing is written until a person approves; then the file holds the content', async () => {
    const file = path.join(root, 'todo.txt');
    h.fake.script(
      { toolCalls: [{ name: 'files__write_file', args: { path: file, content: 'Ship the MCP tools.' } }] },
      { content: 'Written.' },
    );
    const { result } = await h.run(
      { goal: 'Write my todo list' },
      {
        extraTools: mcp.tools(),
        during: async (handle) => {
          const waiting = await waitForProgress(h.client, handle, (p) => p.pendingApprovals.length > 0);
          expect(waiting.pendingApprovals[0]).toMatchObject({
            tool: 'files__write_file',
            args: { path: file, content: 'Ship the MCP tools.' },
          });
          expect(fs.existsSync(file)).toBe(false);
          await handle.executeUpdate(approveUpdate, { args: [waiting.pendingApprovals[0].callId] });
        },
      },
    );

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: 'Written.' });
    expect(fs.readFileSync(file, 'utf8')).toBe('Ship the MCP tools.');
    expect(toolMessages(h.fake.requests[1])).toEqual([`Successfully wrote to ${file}`]);
  });

  it('a server killed between two waves: the next call starts it again and the run completes', async () => {
    // A server of its own, on a directory of its own: the kill must not reach the other tests' server.
    const dir = path.join(root, 'restart');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'one.txt'), 'Before the kill.');
    fs.writeFileSync(path.join(dir, 'two.txt'), 'After the restart.');
    const own = await McpConnections.connect({ restart: filesystemServer(dir, { tools: ['read_text_file'] }) });
    try {
      const [first] = childProcessesMentioning(dir);
      expect(first).toBeDefined();
      h.fake.script(
        { toolCalls: [{ name: 'restart__read_text_file', args: { path: path.join(dir, 'one.txt') } }] },
        async () => {
          process.kill(first, 'SIGKILL');
          await eventually(
            () => isAlive(first),
            (alive) => !alive,
            { problem: 'The killed server is still alive.' },
          );
          return { toolCalls: [{ name: 'restart__read_text_file', args: { path: path.join(dir, 'two.txt') } }] };
        },
        { content: 'Read both.' },
      );
      const { result } = await h.run({ goal: 'Read both files' }, { extraTools: own.tools() });

      h.fake.assertDone();
      expect(result).toMatchObject({ status: 'completed', iterations: 3, answer: 'Read both.' });
      expect(result!.waves.map((wave) => wave.calls.map((call) => [call.ok, call.result]))).toEqual([
        [[true, 'Before the kill.']],
        [[true, 'After the restart.']],
      ]);
      const restarted = childProcessesMentioning(dir);
      expect(restarted).toHaveLength(1);
      expect(restarted[0]).not.toBe(first);
    } finally {
      await own.close();
    }
    // close() stops the server it started.
    expect(childProcessesMentioning(dir)).toEqual([]);
  });

  it('the allowlist hides the other tools; toolsToApprove "*" marks every offered tool; onStderr gets the server\'s stderr', async () => {
    const stderr: string[] = [];
    const listed = await McpConnections.connect(
      { files: filesystemServer(root, { tools: ['read_text_file', 'list_directory'], toolsToApprove: '*' }) },
      { onStderr: (server, line) => stderr.push(`${server}: ${line}`) },
    );
    try {
      expect(stderr).toContain('files: Secure MCP Filesystem Server running on stdio');
      expect(listed.describe()).toEqual([
        {
          name: 'files__read_text_file',
          server: 'files',
          tool: 'read_text_file',
          description: expect.stringContaining('Read'),
          requiresApproval: true,
          effect: 'read',
          destructive: false,
        },
        {
          name: 'files__list_directory',
          server: 'files',
          tool: 'list_directory',
          description: expect.stringContaining('list'),
          requiresApproval: true,
          effect: 'read',
          destructive: false,
        },
      ]);
      expect(listed.tools().map((tool) => [tool.name, tool.requiresApproval])).toEqual([
        ['files__read_text_file', true],
        ['files__list_directory', true],
      ]);
    } finally {
      await listed.close();
    }
    // Without an allowlist every tool is offered; write_file (toolsToApprove) and the tools the
    // server marks destructive wait for approval.
    const approvals = mcp
      .describe()
      .filter((tool) => tool.requiresApproval)
      .map((tool) => tool.name);
    expect(approvals).toEqual(['files__write_file', 'files__edit_file', 'files__move_file']);
    expect(mcp.describe().length).toBeGreaterThan(5);
  });

  it('connect: an allowlist naming a tool the server lacks, or a server that cannot start, fails naming the server', async () => {
    await expect(
      McpConnections.connect({ files: filesystemServer(root, { tools: ['read_text_file', 'format_disk'] }) }),
    ).rejects.toThrow(
      /^MCP server "files" has no tool "format_disk" \(named in "tools"\); it has: read_file, read_text_file, /,
    );
    const missingRoot = path.join(root, 'missing');
    await expect(McpConnections.connect({ broken: filesystemServer(missingRoot) })).rejects.toThrow(
      new RegExp(
        `^MCP server "broken" could not be reached \\(.*${missingRoot}\\): MCP error -32000: Connection closed\\nIts last output on stderr:\\n[\\s\\S]*${missingRoot}`,
      ),
    );
  });

  it('a tool the server no longer has: the server refuses the call, a ToolError with its words', async () => {
    const connection = new McpServerConnection('files', filesystemServer(root), {
      name: 'waveloop-test',
      version: '0',
    });
    const gone = mcpTool(connection, { name: 'format_disk', inputSchema: { type: 'object' } });
    try {
      const call = callTool(gone, {});
      await expect(call).rejects.toThrow(ToolError);
      await expect(call).rejects.toThrow('MCP error -32602: Tool format_disk not found');
    } finally {
      await connection.close();
    }
  });
});

/** An argument as the activity summary shows it (40 characters at most). */
function clip(text: string): string {
  return text.length <= 40 ? text : `${text.slice(0, 39)}…`;
}
