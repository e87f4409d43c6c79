import { createHash } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { BlobStore } from './blob-store';
import { encodingOf, pack, unpack, utf8 } from './bytes';

/** Payloads still larger than this after compression go to the blob store (Temporal refuses payloads over 2 MB). */
export const CLAIM_CHECK_MIN_BYTES = 256 * 1024;

const CLAIM_CHECK = 'binary/waveloop-claim-check';

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
    return payloads.map((payload) => redeemClaimCheck(payload, this.store));
  }
}

/** The payload a claim check stands for, read from `store`; other payloads pass through. */
export function redeemClaimCheck(payload: Payload, store: BlobStore): Payload {
  return encodingOf(payload) === CLAIM_CHECK ? unpack(store.get(Buffer.from(payload.data!).toString())) : payload;
}
