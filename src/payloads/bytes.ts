import type { Payload } from '@temporalio/common';

/**
 * Payloads as bytes, for the codecs that wrap a whole payload (metadata and data) into a new one:
 * gzip, encryption, the claim check.
 */

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** A metadata value as text ('' when absent). */
export const metadataText = (payload: Payload, key: string): string =>
  payload.metadata?.[key] ? Buffer.from(payload.metadata[key]).toString() : '';

/** The payload's `encoding` metadata ('' when absent). */
export const encodingOf = (payload: Payload): string => metadataText(payload, 'encoding');

/** Metadata with its values in base64, as JSON carries bytes. */
export function metadataToBase64(metadata: Payload['metadata']): Record<string, string> {
  return Object.fromEntries(Object.entries(metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
}

/** The metadata `metadataToBase64` made this from. */
export function metadataFromBase64(metadata: Record<string, string>): Record<string, Uint8Array> {
  return Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))]));
}

/** A whole payload (metadata and data) as bytes: a 4-byte header length, the metadata as JSON, the data. */
export function pack(payload: Payload): Uint8Array {
  const header = Buffer.from(JSON.stringify(metadataToBase64(payload.metadata)));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(header.length);
  return Buffer.concat([length, header, Buffer.from(payload.data ?? new Uint8Array())]);
}

/** The payload `pack` made these bytes from. */
export function unpack(bytes: Uint8Array): Payload {
  const buffer = Buffer.from(bytes);
  const length = buffer.readUInt32BE(0);
  return {
    metadata: metadataFromBase64(JSON.parse(buffer.subarray(4, 4 + length).toString()) as Record<string, string>),
    data: new Uint8Array(buffer.subarray(4 + length)),
  };
}
