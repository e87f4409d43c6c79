import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultPayloadConverter } from '@temporalio/common';
import { CLAIM_CHECK_MIN_BYTES, COMPRESS_MIN_BYTES, decodePayloadSync, FileBlobStore, waveloopDataConverter } from '../../src/common/payload-codec';

const encoding = (payload: { metadata?: Record<string, Uint8Array> | null }) => Buffer.from(payload.metadata!.encoding).toString();

describe('payload codecs', () => {
  const store = new FileBlobStore(fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-blobs-')));
  const [gzip, claimCheck] = waveloopDataConverter(store).payloadCodecs!;
  const encode = async (value: unknown) => claimCheck.encode(await gzip.encode([defaultPayloadConverter.toPayload(value)]));
  const decode = async (payloads: Awaited<ReturnType<typeof encode>>) => defaultPayloadConverter.fromPayload((await gzip.decode(await claimCheck.decode(payloads)))[0]);

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
});
