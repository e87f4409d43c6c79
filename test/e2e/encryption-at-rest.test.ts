import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Client, WorkflowFailedError } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AGENT_LOOP_WORKFLOW } from '../../src/contract/agent-loop';
import { metadataFromBase64, metadataToBase64 } from '../../src/payloads/bytes';
import { DEFAULT_WEB_UI_ORIGINS, startCodecServer } from '../../src/payloads/codec-server';
import { chainCodecs, waveloopCodecs } from '../../src/payloads/codecs';
import { waveloopDataConverter } from '../../src/payloads/data-converter';
import { decodeHistoryPayloads } from '../../src/payloads/decode-history';
import { encryptedBlobStore } from '../../src/payloads/encrypted-blob-store';
import { EncryptionKeys, keyIdOf } from '../../src/payloads/encryption-keys';
import { defineTool, ToolError } from '../../src/tools/define';
import { toolMessages } from '../support/fake-model';
import { Harness } from '../support/harness';
import { historyPayloads, historyText } from '../support/history';
import { eventually } from '../support/wait';

const key = randomBytes(32);
const keys = EncryptionKeys.derive(key);
const h = new Harness({ encryption: keys });
beforeAll(() => h.start());
afterAll(() => h.stop());

/** Bob's email in the demo database: personal data a tool returns. */
const EMAIL = 'bob.martin@initech.example';
const GOAL = 'Look up the email address of our contact Bob';

const encodingOf = (payload: { metadata: Record<string, Uint8Array> }) =>
  Buffer.from(payload.metadata.encoding).toString();

describe('encryption at rest', () => {
  it('encryption: with a key on worker and client, the history holds neither the goal nor personal data, and the waveloop client reads the run', async () => {
    h.fake.script({ toolCalls: [{ name: 'search_users', args: { name: 'Bob' } }] }, (request) => {
      expect(toolMessages(request)[0]).toContain(EMAIL); // the model sees plaintext
      return { content: `Bob Martin: ${EMAIL}` };
    });
    const { handle, result, transcript } = await h.run({ goal: GOAL });
    h.fake.assertDone();
    expect(result).toMatchObject({ status: 'completed', answer: `Bob Martin: ${EMAIL}` });
    expect(transcript.map((m) => m.content)).toContain(GOAL);

    // The raw history, as Temporal stores it (fetchHistory does not decode).
    const history = await handle.fetchHistory();
    const raw = historyText(historyToJSON(history));
    expect(raw).not.toContain(EMAIL);
    expect(raw).not.toContain(GOAL);
    expect(raw).not.toContain('Bob Martin');
    expect(raw).not.toContain('search_users(name=Bob)'); // activity summaries are payloads too
    const payloads = historyPayloads(history);
    expect(payloads.length).toBeGreaterThan(5);
    for (const payload of payloads) {
      expect(encodingOf(payload)).toBe('binary/encrypted');
      expect(Buffer.from(payload.metadata['encryption-key-id']).toString()).toBe(keyIdOf(key));
    }

    // A client without the codec cannot read the result; one without the key says which key it needs.
    const plain = new Client({ connection: h.client.connection });
    await expect(plain.workflow.getHandle(handle.workflowId).result()).rejects.toThrow(/binary\/encrypted/);
    const keyless = new Client({ connection: h.client.connection, dataConverter: waveloopDataConverter(h.blobStore) });
    await expect(keyless.workflow.getHandle(handle.workflowId).result()).rejects.toThrow(
      `A payload is encrypted with the key of id "${keyIdOf(key)}", and no encryption key is configured`,
    );

    // The codec server decodes the history's payloads for the Web UI; one with another key refuses, naming the key id.
    const started = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads!;
    const completed = history.events!.at(-1)!.workflowExecutionCompletedEventAttributes!.result!.payloads!;
    const body = {
      payloads: [...started, ...completed].map((p) => ({
        metadata: metadataToBase64(p.metadata),
        data: Buffer.from(p.data!).toString('base64'),
      })),
    };
    const decoded = await decodeThroughCodecServer(keys, body);
    expect(decoded.status).toBe(200);
    const [input, output] = (decoded.body.payloads as Array<{ metadata: Record<string, string>; data: string }>).map(
      (p) =>
        defaultPayloadConverter.fromPayload({
          metadata: metadataFromBase64(p.metadata),
          data: Buffer.from(p.data, 'base64'),
        }),
    );
    expect(input).toMatchObject({ goal: GOAL });
    expect(output).toMatchObject({ status: 'completed', answer: `Bob Martin: ${EMAIL}` });

    const other = EncryptionKeys.derive(randomBytes(32));
    const refused = await decodeThroughCodecServer(other, body);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain(`encrypted with the key of id "${keyIdOf(key)}"`);
  });

  it('encryption: a worker without the key fails the workflow task with a message naming the key id; a worker with it then completes the run', async () => {
    const keyless = await new Harness().start();
    try {
      const { worker, taskQueue } = await keyless.worker();
      // The keyless worker may take the task's retry too; the worker with the key gets it once that
      // attempt times out: after a short workflow task timeout here, not the default 10 s.
      const handle = await h.client.workflow.start(AGENT_LOOP_WORKFLOW, {
        taskQueue,
        workflowId: `encrypted-${randomUUID()}`,
        args: [{ goal: GOAL }],
        workflowTaskTimeout: '2 seconds',
      });
      const failed = await worker.runUntil(
        eventually(
          async () => (await handle.fetchHistory()).events!.find((e) => e.workflowTaskFailedEventAttributes),
          (event) => event !== undefined,
          { problem: 'The workflow task never failed.' },
        ),
      );
      const failure = failed!.workflowTaskFailedEventAttributes!.failure!.message;
      expect(failure).toContain(
        `A payload is encrypted with the key of id "${keyIdOf(key)}", and no encryption key is configured`,
      );

      h.fake.script({ content: 'Nobody by that name.' });
      const { worker: keyed } = await h.worker({ taskQueue });
      expect(await keyed.runUntil(handle.result())).toMatchObject({
        status: 'completed',
        answer: 'Nobody by that name.',
      });
    } finally {
      await keyless.stop();
    }
  });

  it('encryption: failure messages are encrypted too: a tool error and a failed run quote personal data, the history holds neither, waveloop reads both', async () => {
    const lookup = defineTool({
      name: 'check_contact',
      description: 'Checks a contact.',
      parameters: z.object({}),
      execute: () => {
        throw new ToolError(`${EMAIL} has left the company`);
      },
    });
    h.fake.script(
      { toolCalls: [{ name: 'check_contact', args: {} }] },
      { status: 400, message: `The request quoted ${EMAIL}` },
    );
    const { handle, error, result } = await h.run({ goal: GOAL }, { extraTools: [lookup] });
    h.fake.assertDone();
    expect(result).toBeUndefined();
    // The run failed on the model's refusal, and the client reads the message through the codecs.
    expect((error as WorkflowFailedError).cause?.message).toContain(`The request quoted ${EMAIL}`);
    // The workflow saw the tool's error (the second model call carried it).
    expect(toolMessages(h.fake.requests.at(-1)!)[0]).toContain(`${EMAIL} has left the company`);

    const history = await handle.fetchHistory();
    const raw = historyText(historyToJSON(history));
    expect(raw).not.toContain(EMAIL);
    const toolFailure = history.events!.find((e) => e.activityTaskFailedEventAttributes)!
      .activityTaskFailedEventAttributes!.failure!;
    expect(toolFailure.message).toBe('Encoded failure');
    expect(encodingOf(toolFailure.encodedAttributes as never)).toBe('binary/encrypted');

    // `decodeHistoryPayloads` (waveloop tree, the bench) restores messages and stack traces.
    const decoded = await decodeHistoryPayloads(history, waveloopCodecs(h.blobStore, keys));
    const failures = decoded
      .events!.flatMap((e) => [
        e.activityTaskFailedEventAttributes?.failure,
        e.workflowExecutionFailedEventAttributes?.failure,
      ])
      .filter(Boolean);
    // The tool's failure, the model call's, and the run's.
    expect(failures.map((f) => f!.message)).toEqual([
      `${EMAIL} has left the company`,
      expect.stringContaining(`The request quoted ${EMAIL}`),
      expect.stringContaining(`The request quoted ${EMAIL}`),
    ]);
  });

  it('encryption: the full text of a truncated tool result is kept encrypted in the blob store', async () => {
    const directory = defineTool({
      name: 'export_directory',
      description: 'Exports the staff directory.',
      parameters: z.object({}),
      execute: () => `${EMAIL}\n`.repeat(5_000),
    });
    h.fake.script({ toolCalls: [{ name: 'export_directory', args: {} }] }, { content: 'Exported.' });
    const { result } = await h.run({ goal: 'Export the directory' }, { extraTools: [directory] });
    expect(result).toMatchObject({ status: 'completed' });
    const blobKey = /payload key ([a-f0-9]{64})/.exec(result!.waves[0].calls[0].result!)![1];
    expect(Buffer.from(h.blobStore.get(blobKey)).toString('latin1')).not.toContain(EMAIL);
    expect(Buffer.from(encryptedBlobStore(h.blobStore, keys).get(blobKey)).toString()).toBe(`${EMAIL}\n`.repeat(5_000));
    // Its name is no hash of the text: listing the store does not confirm a guess of the text.
    expect(blobKey).not.toBe(createHash('sha256').update(`${EMAIL}\n`.repeat(5_000)).digest('hex'));
  });
});

/** POSTs `body` to /decode of a codec server with `serverKeys` and the harness's blob store, as the Web UI does. */
async function decodeThroughCodecServer(
  serverKeys: EncryptionKeys,
  body: unknown,
): Promise<{ status: number; body: any }> {
  const codec = chainCodecs(waveloopCodecs(h.blobStore, serverKeys));
  const { server, url } = await startCodecServer({
    codec,
    origins: DEFAULT_WEB_UI_ORIGINS,
    host: '127.0.0.1',
    port: 0,
  });
  try {
    const response = await fetch(`${url}/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: DEFAULT_WEB_UI_ORIGINS[0], 'x-namespace': 'default' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}
