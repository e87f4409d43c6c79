import type { PayloadCodec } from '@temporalio/common';
import type { BlobStore } from './blob-store';
import { ClaimCheckCodec } from './claim-check';
import { GzipCodec } from './compression';
import { EncryptionCodec } from './encryption';
import type { EncryptionKeys } from './encryption-keys';

/**
 * Payload codecs for everything waveloop sends through Temporal (workflow inputs and results,
 * activity inputs and results, query answers, summaries): large payloads are gzip-compressed, then
 * everything is encrypted when a key is configured, and what is still too large after that is
 * stored outside the history (a claim check) and replaced by its key.
 * Workers and clients must use the same converter: `waveloopDataConverter(store, keys)`.
 * Codecs never run inside workflow code, so the modules of src/payloads may do I/O.
 */

/**
 * waveloop's codecs in encoding order (Temporal decodes in reverse): gzip first, since ciphertext
 * does not compress; then encryption with `keys` (without keys, a guard that refuses encrypted
 * payloads with a message naming their key id), so nothing readable leaves the process; then the
 * claim check into `store`, whose files therefore hold ciphertext when encryption is on.
 */
export function waveloopCodecs(store?: BlobStore, keys?: EncryptionKeys): PayloadCodec[] {
  return [new GzipCodec(), new EncryptionCodec(keys), ...(store ? [new ClaimCheckCodec(store)] : [])];
}

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
