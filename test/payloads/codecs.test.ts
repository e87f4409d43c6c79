import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { FileBlobStore, type BlobStore } from '../../src/payloads/blob-store';
import { unpack } from '../../src/payloads/bytes';
import { CLAIM_CHECK_MIN_BYTES } from '../../src/payloads/claim-check';
import { chainCodecs } from '../../src/payloads/codecs';
import { COMPRESS_MIN_BYTES } from '../../src/payloads/compression';
import { waveloopDataConverter } from '../../src/payloads/data-converter';
import { decodeHistoryPayloads, decodePayloadSync } from '../../src/payloads/decode-history';
import { EncryptionKeys, keyIdOf } from '../../src/payloads/encryption-keys';

const encoding = (payload: { metadata?: Record<string, Uint8Array> | null }) =>
  Buffer.from(payload.metadata!.encoding).toString();

/** Encodes and decodes values through the converter's codecs, as Temporal applies them. */
function codecs(store: BlobStore, keys?: EncryptionKeys) {
  const codec = chainCodecs(waveloopDataConverter(store, keys).payloadCodecs!);
  return {
    encode: async (value: unknown) => codec.encode([defaultPayloadConverter.toPayload(value)]),
    decode: async (payloads: Payload[]) => defaultPayloadConverter.fromPayload((await codec.decode(payloads))[0]),
  };
}

describe('payload codecs', () => {
  const store = new FileBlobStore(fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-blobs-')));
  const { encode, decode } = codecs(store);

  it('payload codecs: a small payload passes through as plain JSON', async () => {
    const [payload] = await encode({ hello: 'world' });
    expect(encoding(payload)).toBe('json/plain');
  });

  it('payload codecs: a large compressible payload is gzipped and decodes to the same value', async () => {
    const value = { text: 'all work and no play '.repeat(COMPRESS_MIN_BYTES) };
    const payloads = await encode(value);
    expect(encoding(payloads[0])).toBe('binary/waveloop-gzip');
    expect(payloads[0].data!.length).toBeLessThan(CLAIM_CHECK_MIN_BYTES);
    expect(await decode(payloads)).toEqual(value);
  });

  it('payload codecs: what is still too large after gzip is stored outside the history, by content hash', async () => {
    const value = randomBytes(3 * 1024 * 1024).toString('base64');
    const payloads = await encode(value);
    expect(encoding(payloads[0])).toBe('binary/waveloop-claim-check');
    expect(payloads[0].data!.length).toBe(64);
    expect(fs.readdirSync(store.dir)).toContain(Buffer.from(payloads[0].data!).toString());
    expect(await decode(payloads)).toBe(value);
    expect(defaultPayloadConverter.fromPayload(decodePayloadSync(payloads[0], store))).toBe(value);
  });

  it('payload codecs: a claim check with a key that is not a hash is refused', () => {
    expect(() => store.get('../../etc/passwd')).toThrow(/Not a payload key/);
  });

  it('payload codecs: with a key, payloads are gzipped, then encrypted, then claim-checked: the claim-check file holds ciphertext', async () => {
    const key = randomBytes(32);
    const keys = EncryptionKeys.derive(key);
    const encrypted = codecs(store, keys);
    const small = await encrypted.encode({ email: 'bob.martin@initech.example' });
    expect(encoding(small[0])).toBe('binary/encrypted');
    expect(await encrypted.decode(small)).toEqual({ email: 'bob.martin@initech.example' });

    const compressible = { text: 'bob.martin@initech.example '.repeat(COMPRESS_MIN_BYTES) };
    const [gzippedFirst] = await encrypted.encode(compressible);
    expect(encoding(gzippedFirst)).toBe('binary/encrypted');
    expect(gzippedFirst.data!.length).toBeLessThan(COMPRESS_MIN_BYTES); // compressed before it was encrypted

    const large = `bob.martin@initech.example ${randomBytes(3 * 1024 * 1024).toString('base64')}`;
    const claimed = await encrypted.encode(large);
    expect(encoding(claimed[0])).toBe('binary/waveloop-claim-check');
    const file = fs.readFileSync(path.join(store.dir, Buffer.from(claimed[0].data!).toString()));
    expect(file.toString('latin1')).not.toContain('bob.martin');
    expect(encoding(unpack(file))).toBe('binary/encrypted');
    expect(Buffer.from(unpack(file).metadata!['encryption-key-id']).toString()).toBe(keyIdOf(key));
    expect(await encrypted.decode(claimed)).toBe(large);
    expect(defaultPayloadConverter.fromPayload(decodePayloadSync(claimed[0], store, keys))).toBe(large);
  });

  it('payload codecs: without the key, an encrypted payload (claim-checked or not) fails with a message naming its key id', async () => {
    const key = randomBytes(32);
    const claimed = await codecs(store, EncryptionKeys.derive(key)).encode(
      randomBytes(3 * 1024 * 1024).toString('base64'),
    );
    await expect(decode(claimed)).rejects.toThrow(
      `encrypted with the key of id "${keyIdOf(key)}", and no encryption key is configured`,
    );
    expect(() => decodePayloadSync(claimed[0], store)).toThrow(keyIdOf(key));
  });

  it('payload codecs: decodeHistoryPayloads decodes every payload list of a fetched history in place', async () => {
    const keys = EncryptionKeys.derive(randomBytes(32));
    const encrypted = codecs(store, keys);
    const history = {
      events: [
        {
          workflowExecutionStartedEventAttributes: {
            input: { payloads: await encrypted.encode({ goal: 'Find Bob' }) },
          },
        },
        {
          activityTaskCompletedEventAttributes: {
            result: { payloads: await encrypted.encode('bob.martin@initech.example') },
          },
        },
      ],
    };
    await decodeHistoryPayloads(history, waveloopDataConverter(store, keys).payloadCodecs!);
    expect(
      defaultPayloadConverter.fromPayload(history.events[0].workflowExecutionStartedEventAttributes!.input.payloads[0]),
    ).toEqual({ goal: 'Find Bob' });
    expect(
      defaultPayloadConverter.fromPayload(history.events[1].activityTaskCompletedEventAttributes!.result.payloads[0]),
    ).toBe('bob.martin@initech.example');
  });
});
