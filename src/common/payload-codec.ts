import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';

/**
 * Payload codecs for everything waveloop sends through Temporal (workflow inputs and results,
 * activity inputs and results, query answers): large payloads are gzip-compressed, and what is still
 * too large after that is stored outside the history (a claim check) and replaced by its key.
 * Workers and clients must use the same converter: `waveloopDataConverter(dataDir)`.
 * Codecs never run inside workflow code, so this module may do I/O.
 */

/** Payloads at least this large are compressed (smaller ones gain little and stay readable in the Web UI). */
export const COMPRESS_MIN_BYTES = 16 * 1024;
/** Payloads still larger than this after compression go to the blob store (Temporal refuses payloads over 2 MB). */
export const CLAIM_CHECK_MIN_BYTES = 256 * 1024;

const GZIP = 'binary/waveloop-gzip';
const CLAIM_CHECK = 'binary/waveloop-claim-check';
const utf8 = (text: string) => new TextEncoder().encode(text);

/** A whole payload (metadata and data) as bytes: a 4-byte header length, the metadata as JSON, the data. */
function pack(payload: Payload): Uint8Array {
  const metadata = Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
  const header = Buffer.from(JSON.stringify(metadata));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(header.length);
  return Buffer.concat([length, header, Buffer.from(payload.data ?? new Uint8Array())]);
}

function unpack(bytes: Uint8Array): Payload {
  const buffer = Buffer.from(bytes);
  const length = buffer.readUInt32BE(0);
  const metadata = JSON.parse(buffer.subarray(4, 4 + length).toString()) as Record<string, string>;
  return {
    metadata: Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))])),
    data: new Uint8Array(buffer.subarray(4 + length)),
  };
}

const encodingOf = (payload: Payload) => (payload.metadata?.encoding ? Buffer.from(payload.metadata.encoding).toString() : '');

/** gzip for payloads of `minBytes` or more, when it makes them smaller; others pass through. */
export class GzipCodec implements PayloadCodec {
  constructor(private readonly minBytes = COMPRESS_MIN_BYTES) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if ((payload.data?.length ?? 0) < this.minBytes) return payload;
      const data = gzipSync(pack(payload));
      return data.length < (payload.data?.length ?? 0) ? { metadata: { encoding: utf8(GZIP) }, data } : payload;
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map(decodeGzip);
  }
}

function decodeGzip(payload: Payload): Payload {
  return encodingOf(payload) === GZIP ? unpack(gunzipSync(payload.data!)) : payload;
}

/** Where claim-checked payloads live. Keys are content hashes, so writing the same payload twice is harmless. */
export interface BlobStore {
  put(key: string, bytes: Uint8Array): void;
  get(key: string): Uint8Array;
}

/** A blob store in a directory (the embedded default: `<dataDir>/payloads`), one file per payload, written atomically. */
export class FileBlobStore implements BlobStore {
  constructor(readonly dir: string) {}

  put(key: string, bytes: Uint8Array): void {
    const file = path.join(this.dir, key);
    if (fs.existsSync(file)) return;
    fs.mkdirSync(this.dir, { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, bytes);
    fs.renameSync(temp, file);
  }

  get(key: string): Uint8Array {
    if (!/^[a-f0-9]{64}$/.test(key)) throw new Error(`Not a payload key: ${key}`);
    return fs.readFileSync(path.join(this.dir, key));
  }
}

/**
 * The claim check: a payload larger than `minBytes` is stored in `store` under its SHA-256 and the
 * history holds only `{ encoding: binary/waveloop-claim-check, data: <key> }`. Every process that
 * reads such a payload (workers replaying, clients reading results) needs the same store.
 */
export class ClaimCheckCodec implements PayloadCodec {
  constructor(
    private readonly store: BlobStore,
    private readonly minBytes = CLAIM_CHECK_MIN_BYTES,
  ) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if ((payload.data?.length ?? 0) <= this.minBytes) return payload;
      const bytes = pack(payload);
      const key = createHash('sha256').update(bytes).digest('hex');
      this.store.put(key, bytes);
      return { metadata: { encoding: utf8(CLAIM_CHECK) }, data: utf8(key) };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => decodeClaimCheck(payload, this.store));
  }
}

function decodeClaimCheck(payload: Payload, store: BlobStore): Payload {
  return encodingOf(payload) === CLAIM_CHECK ? unpack(store.get(Buffer.from(payload.data!).toString())) : payload;
}

/** The blob store of a data directory. */
export function blobStoreIn(dataDir: string): FileBlobStore {
  return new FileBlobStore(path.join(dataDir, 'payloads'));
}

/**
 * The data converter of waveloop's workers and clients: gzip, then the claim check into `store`
 * (omit it and payloads over 2 MB after compression fail as Temporal's limits say).
 */
export function waveloopDataConverter(store?: BlobStore): DataConverter {
  return { payloadCodecs: [new GzipCodec(), ...(store ? [new ClaimCheckCodec(store)] : [])] };
}

/** Decodes one payload the way the codecs above do, synchronously (for tools that read histories). */
export function decodePayloadSync(payload: Payload, store?: BlobStore): Payload {
  const unclaimed = store ? decodeClaimCheck(payload, store) : payload;
  return decodeGzip(unclaimed);
}
