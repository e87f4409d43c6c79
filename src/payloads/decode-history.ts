import { defaultPayloadConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import type { BlobStore } from './blob-store';
import { redeemClaimCheck } from './claim-check';
import { chainCodecs } from './codecs';
import { decompressPayload } from './compression';
import { decryptPayload } from './encryption';
import type { EncryptionKeys } from './encryption-keys';

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

/** Decodes one payload the way `waveloopCodecs` do, synchronously (for tools that read histories). */
export function decodePayloadSync(payload: Payload, store?: BlobStore, keys?: EncryptionKeys): Payload {
  const redeemed = store ? redeemClaimCheck(payload, store) : payload;
  return decompressPayload(decryptPayload(redeemed, keys));
}
