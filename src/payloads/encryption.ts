import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { encodingOf, metadataText, pack, unpack, utf8 } from './bytes';
import type { EncryptionKeys } from './encryption-keys';

/**
 * Encryption of payloads at rest in Temporal: AES-256-GCM over the whole payload (metadata and
 * data), a random 12-byte IV per payload. An encrypted payload is
 * `{ encoding: binary/encrypted, encryption-key-id: <id> }` with data `IV ‖ ciphertext ‖ 16-byte tag`;
 * the tag makes any change to the data (or a wrong key) fail decryption instead of yielding garbage.
 */

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The payload encrypted with the current key; unchanged when there is none (decryption-only keys). */
export function encryptPayload(payload: Payload, keys: EncryptionKeys): Payload {
  const id = keys.currentId;
  if (id === undefined) return payload;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, keys.key(id)!, iv);
  const data = Buffer.concat([iv, cipher.update(pack(payload)), cipher.final(), cipher.getAuthTag()]);
  return { metadata: { encoding: utf8(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: utf8(id) }, data };
}

/**
 * The payload an encrypted payload holds; other payloads pass through. Throws, naming the key id,
 * when no key with that id is given, and when the data was altered or the key is not the one used.
 */
export function decryptPayload(payload: Payload, keys: EncryptionKeys | undefined): Payload {
  if (encodingOf(payload) !== ENCRYPTED_ENCODING) return payload;
  const id = metadataText(payload, KEY_ID_METADATA);
  const key = keys?.key(id);
  if (!key) {
    const known = keys?.ids.length
      ? `the configured keys have ids ${keys.ids.map((k) => `"${k}"`).join(', ')}`
      : 'no encryption key is configured';
    throw new Error(
      `A payload is encrypted with the key of id "${id}", and ${known}: set WAVELOOP_ENCRYPTION_KEY, or add the key to WAVELOOP_DECRYPTION_KEYS.`,
    );
  }
  const data = Buffer.from(payload.data ?? new Uint8Array());
  try {
    const decipher = createDecipheriv(ALGORITHM, key, data.subarray(0, IV_BYTES));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    return unpack(Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]));
  } catch {
    throw new Error(
      `A payload encrypted with the key of id "${id}" does not decrypt: it was altered, or the key configured under that id is not the one that encrypted it.`,
    );
  }
}

/**
 * The encryption codec: encrypts every payload with the current key and decrypts with any key
 * given. Without keys it encrypts nothing, and decoding an encrypted payload fails with a message
 * that names its key id (rather than handing Temporal bytes it cannot read).
 */
export class EncryptionCodec implements PayloadCodec {
  constructor(private readonly keys?: EncryptionKeys) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const keys = this.keys;
    return keys ? payloads.map((payload) => encryptPayload(payload, keys)) : payloads;
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => decryptPayload(payload, this.keys));
  }
}
