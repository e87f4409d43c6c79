import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpConnections } from '../../src/mcp';
import { ToolError } from '../../src/tools/define';
import { EverythingHttpServer } from '../mcp/servers';
import { toolMessages } from '../support/fake-model';
import { Harness } from '../support/harness';
import { activities } from '../support/history';
import { callTool } from '../support/tool-context';

const h = new Harness();
const everything = new EverythingHttpServer();
let mcp: McpConnections;

beforeAll(async () => {
  await Promise.all([everything.start(), h.start()]);
  mcp = await McpConnections.connect({
    everything: everything.config({ tools: ['echo', 'get-sum', 'get-tiny-image'] }),
  });
});

afterAll(async () => {
  await mcp?.close();
  await everything.stop();
  await h.stop();
});

describe('MCP over Streamable HTTP (the everything server)', () => {
  it('a wave of MCP calls: results reach the model as text, an isError result as "Error: …", and the run completes', async () => {
    h.fake.script(
      {
        toolCalls: [
          { name: 'everything__echo', args: { message: 'hello over HTTP' } },
          { name: 'everything__get-sum', args: { a: 2, b: 40 } },
          { name: 'everything__get-sum', args: { a: 'two', b: 40 } },
          { name: 'everything__get-tiny-image', args: {} },
        ],
      },
      { content: 'Echoed, added, and looked at the picture.' },
    );
    const { handle, result } = await h.run({ goal: 'Try the everything server' }, { extraTools: mcp.tools() });

    h.fake.assertDone();
    expect(result).toMatchObject({
      status: 'completed',
      iterations: 2,
      answer: 'Echoed, added, and looked at the picture.',
    });
    const [echo, sum, badSum, image] = toolMessages(h.fake.requests[1]);
    expect(echo).toBe('Echo: hello over HTTP');
    expect(sum).toBe('The sum of 2 and 40 is 42.');
    expect(badSum).toMatch(/^Error: MCP error -32602: Input validation error: Invalid arguments for tool get-sum: /);
    expect(image).toMatch(/\[image image\/png, \d+ bytes\]/);
    expect(result!.waves[0].calls.map((call) => call.ok)).toEqual([true, true, false, true]);

    // One activity per call, all four in the one wave; the refused call was not retried.
    const tools = activities(await handle.fetchHistory()).filter((a) => a.type === 'runTool');
    expect(tools.map((a) => [a.summary, a.attempts])).toEqual([
      ['wave 1 · everything__echo(message=hello over HTTP)', 1],
      ['wave 1 · everything__get-sum(a=2, b=40)', 1],
      ['wave 1 · everything__get-sum(a=two, b=40)', 1],
      ['wave 1 · everything__get-tiny-image()', 1],
    ]);
  });

  it('a call that outlives timeoutSeconds fails its attempt with a retryable error naming the server; the next call goes through', async () => {
    const slow = await McpConnections.connect({
      slow: everything.config({ tools: ['trigger-long-running-operation', 'echo'], timeoutSeconds: 0.3 }),
    });
    try {
      const longRunning = slow.tools().find((tool) => tool.name === 'slow__trigger-long-running-operation')!;
      const echo = slow.tools().find((tool) => tool.name === 'slow__echo')!;
      expect(longRunning.timeoutSeconds).toBe(0.3);
      const call = callTool(longRunning, { duration: 5, steps: 1 });
      await expect(call).rejects.toThrow(
        /^MCP server "slow" did not answer the call of trigger-long-running-operation in time/,
      );
      await expect(call).rejects.not.toBeInstanceOf(ToolError);
      await expect(callTool(echo, { message: 'still here' })).resolves.toBe('Echo: still here');
    } finally {
      await slow.close();
    }
  });

  it('a server that is down: after the retries the model reads an error naming it; once it is back, the next call reconnects', async () => {
    await everything.stop();
    h.fake.script(
      { toolCalls: [{ name: 'everything__echo', args: { message: 'anyone there?' } }] },
      async () => {
        await everything.start();
        return { toolCalls: [{ name: 'everything__echo', args: { message: 'back again' } }] };
      },
      { content: 'The server was down for a while.' },
    );
    const { handle, result } = await h.run({ goal: 'Echo twice' }, { extraTools: mcp.tools() });

    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', iterations: 3 });
    expect(toolMessages(h.fake.requests[1])).toEqual([
      expect.stringMatching(/^Error: MCP server "everything" could not be reached/),
    ]);
    expect(toolMessages(h.fake.requests[2]).at(-1)).toBe('Echo: back again');
    const attempts = activities(await handle.fetchHistory())
      .filter((a) => a.type === 'runTool')
      .map((a) => a.attempts);
    expect(attempts).toEqual([3, 1]);
  });
});
