import { createHmac } from 'node:crypto';
import type { BlobStore } from './blob-store';
import { pack, unpack } from './bytes';
import { decryptPayload, encryptPayload } from './encryption';
import type { EncryptionKeys } from './encryption-keys';

/**
 * A blob store whose files hold ciphertext: `put` stores the bytes as an encrypted payload (packed
 * like a claim-check file), `get` decrypts them. For what workers keep besides claim checks (the
 * full text of a truncated tool result) when encryption is on. Blobs are named by an HMAC of their
 * bytes under a key derived from the current encryption key, not by their SHA-256: a file name must
 * not let someone who can list the store confirm a guess of what a file holds.
 */
export function encryptedBlobStore(store: BlobStore, keys: EncryptionKeys): BlobStore {
  const current = keys.currentId === undefined ? undefined : keys.key(keys.currentId);
  const naming = current && createHmac('sha256', current).update('waveloop blob names').digest();
  return {
    put: (key, bytes) => store.put(key, pack(encryptPayload({ metadata: {}, data: bytes }, keys))),
    get: (key) => decryptPayload(unpack(store.get(key)), keys).data ?? new Uint8Array(),
    ...(naming ? { keyOf: (bytes: Uint8Array) => createHmac('sha256', naming).update(bytes).digest('hex') } : {}),
  };
}
