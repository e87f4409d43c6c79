import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { defaultPayloadConverter, type DataConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import { decryptPayload, EncryptionCodec } from './encryption-codec';
import type { EncryptionKeys } from './encryption-keys';
import { encodingOf, pack, unpack, utf8 } from './payload-bytes';

/**
 * Payload codecs for everything waveloop sends through Temporal (workflow inputs and results,
 * activity inputs and results, query answers, summaries): large payloads are gzip-compressed, then
 * everything is encrypted when a key is configured, and what is still too large after that is
 * stored outside the history (a claim check) and replaced by its key.
 * Workers and clients must use the same converter: `waveloopDataConverter(store, keys)`.
 * Codecs never run inside workflow code, so this module may do I/O.
 */

/** Payloads at least this large are compressed (smaller ones gain little and stay readable in the Web UI). */
export const COMPRESS_MIN_BYTES = 16 * 1024;
/** Payloads still larger than this after compression go to the blob store (Temporal refuses payloads over 2 MB). */
export const CLAIM_CHECK_MIN_BYTES = 256 * 1024;

const GZIP = 'binary/waveloop-gzip';
const CLAIM_CHECK = 'binary/waveloop-claim-check';

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
  /** The key to keep `bytes` under (64 hex digits); default: their SHA-256. */
  keyOf?(bytes: Uint8Array): string;
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
 * waveloop's codecs in encoding order (Temporal decodes in reverse): gzip first, since ciphertext
 * does not compress; then encryption with `keys` (without keys, a guard that refuses encrypted
 * payloads with a message naming their key id), so nothing readable leaves the process; then the
 * claim check into `store`, whose files therefore hold ciphertext when encryption is on.
 */
export function waveloopCodecs(store?: BlobStore, keys?: EncryptionKeys): PayloadCodec[] {
  return [new GzipCodec(), new EncryptionCodec(keys), ...(store ? [new ClaimCheckCodec(store)] : [])];
}

/**
 * The data converter of waveloop's workers and clients (see `waveloopCodecs`). Omit `store` and
 * payloads over 2 MB after compression fail as Temporal's limits say; omit `keys` and nothing is
 * encrypted. With a key, failures' messages and stack traces travel as an encrypted payload too
 * (`encoded-failures.cjs`): a tool's error may quote what it read.
 */
export function waveloopDataConverter(store?: BlobStore, keys?: EncryptionKeys): DataConverter {
  return {
    payloadCodecs: waveloopCodecs(store, keys),
    ...(keys?.currentId ? { failureConverterPath: ENCODED_FAILURES_PATH } : {}),
  };
}

/** The failure converter that encodes messages and stack traces (for a worker's `bundleWorkflowCode`, when given a bundle). */
export const ENCODED_FAILURES_PATH = path.join(__dirname, 'encoded-failures.cjs');

/** Codecs as one, the way Temporal applies a converter's list: encode in order, decode in reverse. */
export function chainCodecs(codecs: readonly PayloadCodec[]): PayloadCodec {
  return {
    async encode(payloads) {
      for (const codec of codecs) payloads = await codec.encode(payloads);
      return payloads;
    },
    async decode(payloads) {
      for (const codec of [...codecs].reverse()) payloads = await codec.decode(payloads);
      return payloads;
    },
  };
}

/**
 * Decodes, in place, every payload list (`{ payloads: [...] }`: inputs, results, failure details)
 * of a fetched history through `codecs`, so its values read as the workflow saw them. Histories from
 * `fetchHistory()` are raw: compressed, encrypted or claim-checked payloads stay so until decoded.
 */
export async function decodeHistoryPayloads<H extends object>(history: H, codecs: readonly PayloadCodec[]): Promise<H> {
  const codec = chainCodecs(codecs);
  const visit = async (value: unknown): Promise<void> => {
    if (!value || typeof value !== 'object' || value instanceof Uint8Array) return;
    const record = value as Record<string, unknown>;
    if (Array.isArray(record.payloads)) record.payloads = await codec.decode(record.payloads as Payload[]);
    else await Promise.all(Object.values(record).map(visit));
    if (isPayload(record.encodedAttributes)) await decodeFailureAttributes(record, codec);
  };
  await visit(history);
  return history;
}

/**
 * A failure whose message and stack trace were encoded (`encoded-failures.cjs`) gets them back, as
 * the SDK's failure converter does when it reads one: the history holds only "Encoded failure".
 */
async function decodeFailureAttributes(failure: Record<string, unknown>, codec: PayloadCodec): Promise<void> {
  const [payload] = await codec.decode([failure.encodedAttributes as Payload]);
  failure.encodedAttributes = payload;
  const attributes: unknown = defaultPayloadConverter.fromPayload(payload);
  if (typeof attributes !== 'object' || attributes === null) return;
  const { message, stack_trace: stackTrace } = attributes as { message?: unknown; stack_trace?: unknown };
  if (typeof message === 'string') failure.message = message;
  if (typeof stackTrace === 'string') failure.stackTrace = stackTrace;
}

const isPayload = (value: unknown): value is Payload =>
  typeof value === 'object' && value !== null && 'metadata' in value && 'data' in value;

/** Decodes one payload the way the codecs above do, synchronously (for tools that read histories). */
export function decodePayloadSync(payload: Payload, store?: BlobStore, keys?: EncryptionKeys): Payload {
  const unclaimed = store ? decodeClaimCheck(payload, store) : payload;
  return decodeGzip(decryptPayload(unclaimed, keys));
}
