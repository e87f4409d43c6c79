import { gunzipSync, gzipSync } from 'node:zlib';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { encodingOf, pack, unpack, utf8 } from './bytes';

/** Payloads at least this large are compressed (smaller ones gain little and stay readable in the Web UI). */
export const COMPRESS_MIN_BYTES = 16 * 1024;

const GZIP = 'binary/waveloop-gzip';

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
    return payloads.map(decompressPayload);
  }
}

/** The payload a gzipped payload holds; other payloads pass through. */
export function decompressPayload(payload: Payload): Payload {
  return encodingOf(payload) === GZIP ? unpack(gunzipSync(payload.data!)) : payload;
}
