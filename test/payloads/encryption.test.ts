import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { inspect } from 'node:util';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { FileBlobStore } from '../../src/payloads/blob-store';
import { encryptedBlobStore } from '../../src/payloads/encrypted-blob-store';
import { EncryptionCodec } from '../../src/payloads/encryption';
import { EncryptionKeys, encryptionKeysFromEnv, keyIdOf } from '../../src/payloads/encryption-keys';

const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString();
const PERSONAL = { name: 'Bob Martin', email: 'bob.martin@initech.example' };

const oldKey = randomBytes(32);
const newKey = randomBytes(32);
const encrypt = async (keys: EncryptionKeys, value: unknown = PERSONAL) =>
  (await new EncryptionCodec(keys).encode([defaultPayloadConverter.toPayload(value)]))[0];
const decrypt = async (keys: EncryptionKeys | undefined, payload: Payload) =>
  defaultPayloadConverter.fromPayload((await new EncryptionCodec(keys).decode([payload]))[0]);

/** The message of the error `fn` throws (synchronously or not). */
async function errorOf(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  throw new Error('expected an error');
}

describe('encryption codec', () => {
  it('encryption codec: round trip; the payload names its key id, and neither the data nor its metadata show through', async () => {
    const keys = EncryptionKeys.derive(newKey);
    const payload = await encrypt(keys);
    expect(text(payload.metadata!.encoding)).toBe('binary/encrypted');
    expect(text(payload.metadata!['encryption-key-id'])).toBe(keyIdOf(newKey));
    expect(text(payload.data)).not.toContain('initech');
    expect(text(payload.data)).not.toContain('json/plain');
    expect(await decrypt(keys, payload)).toEqual(PERSONAL);
  });

  it('encryption codec: every payload gets a fresh IV (the same value encrypts differently)', async () => {
    const keys = EncryptionKeys.derive(newKey);
    expect(text((await encrypt(keys)).data)).not.toBe(text((await encrypt(keys)).data));
  });

  it('encryption codec: tampered ciphertext is rejected, not decoded to garbage', async () => {
    const keys = EncryptionKeys.derive(newKey);
    const payload = await encrypt(keys);
    const data = Buffer.from(payload.data!);
    data[20] ^= 1;
    expect(await errorOf(() => decrypt(keys, { ...payload, data }))).toMatch(
      /encrypted with the key of id "[0-9a-f]{16}" does not decrypt: it was altered/,
    );
  });

  it('encryption codec: a payload of an unknown key id, or with no key configured, fails with a message naming the key id', async () => {
    const payload = await encrypt(EncryptionKeys.derive(oldKey));
    const id = keyIdOf(oldKey);
    expect(await errorOf(() => decrypt(EncryptionKeys.derive(newKey), payload))).toBe(
      `A payload is encrypted with the key of id "${id}", and the configured keys have ids "${keyIdOf(newKey)}": set WAVELOOP_ENCRYPTION_KEY, or add the key to WAVELOOP_DECRYPTION_KEYS.`,
    );
    expect(await errorOf(() => decrypt(undefined, payload))).toContain(
      `the key of id "${id}", and no encryption key is configured`,
    );
  });

  it('encryption codec: a key under the right id but with the wrong bytes does not decrypt', async () => {
    const payload = await encrypt(new EncryptionKeys('k1', new Map([['k1', oldKey]])));
    expect(await errorOf(() => decrypt(new EncryptionKeys('k1', new Map([['k1', newKey]])), payload))).toMatch(
      /key configured under that id is not the one/,
    );
  });

  it('encryption codec: key rotation: the new key encrypts, the old one still decrypts what it encrypted', async () => {
    const before = await encrypt(EncryptionKeys.derive(oldKey));
    const rotated = EncryptionKeys.derive(newKey, [oldKey]);
    const after = await encrypt(rotated);
    expect(text(after.metadata!['encryption-key-id'])).toBe(keyIdOf(newKey));
    expect(await decrypt(rotated, before)).toEqual(PERSONAL);
    expect(await decrypt(rotated, after)).toEqual(PERSONAL);
    // Encryption turned off: old keys only decrypt, new payloads stay plain.
    const off = EncryptionKeys.derive(undefined, [oldKey, newKey]);
    expect(text((await encrypt(off)).metadata!.encoding)).toBe('json/plain');
    expect(await decrypt(off, after)).toEqual(PERSONAL);
  });

  it('encryption codec: without keys, payloads pass through both ways', async () => {
    const plain = defaultPayloadConverter.toPayload(PERSONAL);
    expect(await new EncryptionCodec().encode([plain])).toEqual([plain]);
    expect(await new EncryptionCodec().decode([plain])).toEqual([plain]);
  });

  it('encryption codec: an encrypted blob store keeps ciphertext in its files and returns the bytes', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-encrypted-blobs-'));
    const store = encryptedBlobStore(new FileBlobStore(dir), EncryptionKeys.derive(newKey));
    store.put('a'.repeat(64), new TextEncoder().encode(PERSONAL.email));
    expect(fs.readFileSync(path.join(dir, 'a'.repeat(64)), 'utf8')).not.toContain('initech');
    expect(text(store.get('a'.repeat(64)))).toBe(PERSONAL.email);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('encryption keys from the environment', () => {
  const key = newKey.toString('base64');

  it('encryption keys: none configured means no encryption', () => {
    expect(encryptionKeysFromEnv({})).toBeUndefined();
    expect(encryptionKeysFromEnv({ WAVELOOP_ENCRYPTION_KEY: '  ' })).toBeUndefined();
  });

  it('encryption keys: the current key with a derived or a given id, and older keys with theirs', () => {
    expect(encryptionKeysFromEnv({ WAVELOOP_ENCRYPTION_KEY: key })!.currentId).toBe(keyIdOf(newKey));
    const keys = encryptionKeysFromEnv({
      WAVELOOP_ENCRYPTION_KEY: ` ${key} `,
      WAVELOOP_ENCRYPTION_KEY_ID: '2026-06',
      WAVELOOP_DECRYPTION_KEYS: `2025-01:${oldKey.toString('base64')}, ${randomBytes(32).toString('base64')}`,
    })!;
    expect(keys.currentId).toBe('2026-06');
    expect(keys.ids.slice(0, 2)).toEqual(['2026-06', '2025-01']);
    expect(keys.ids).toHaveLength(3);
  });

  it('encryption keys: a key of the wrong length or not in base64 is refused with a message that names the variable, never the key', () => {
    const short = randomBytes(16).toString('base64');
    for (const [env, expected] of [
      [
        { WAVELOOP_ENCRYPTION_KEY: short },
        /WAVELOOP_ENCRYPTION_KEY.*decodes to 16 bytes, and AES-256 needs 32; use 32 random bytes in base64, e\.g\. the output of `openssl rand -base64 32`/s,
      ],
      [{ WAVELOOP_ENCRYPTION_KEY: 'not a key!' }, /WAVELOOP_ENCRYPTION_KEY.*is not base64/s],
      [
        { WAVELOOP_DECRYPTION_KEYS: `old:${short}` },
        /WAVELOOP_DECRYPTION_KEYS.*entry 1 \(id "old"\): the key decodes to 16 bytes/s,
      ],
      [
        { WAVELOOP_DECRYPTION_KEYS: `${key}:${key}` },
        /WAVELOOP_DECRYPTION_KEYS.*entry 1: the id before ':' must be 1 to 64 letters/s,
      ],
      [{ WAVELOOP_ENCRYPTION_KEY_ID: 'k1' }, /WAVELOOP_ENCRYPTION_KEY_ID.*is set, but WAVELOOP_ENCRYPTION_KEY is not/s],
      [
        { WAVELOOP_ENCRYPTION_KEY: key, WAVELOOP_ENCRYPTION_KEY_ID: 'k 1' },
        /WAVELOOP_ENCRYPTION_KEY_ID.*must be 1 to 64 letters/s,
      ],
      [
        {
          WAVELOOP_ENCRYPTION_KEY: key,
          WAVELOOP_ENCRYPTION_KEY_ID: 'k1',
          WAVELOOP_DECRYPTION_KEYS: `k1:${oldKey.toString('base64')}`,
        },
        /gives id "k1" to a second, different key/,
      ],
    ] as const) {
      const error = (() => {
        try {
          encryptionKeysFromEnv(env);
        } catch (err) {
          return err;
        }
      })();
      expect(error).toBeInstanceOf(ZodError);
      const message = (error as ZodError).issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('\n');
      expect(message).toMatch(expected);
      expect(`${message}\n${(error as ZodError).message}`).not.toContain(short);
      expect(`${message}\n${(error as ZodError).message}`).not.toContain(key);
    }
  });

  it('encryption keys: printing the keys never shows key bytes', () => {
    const keys = encryptionKeysFromEnv({ WAVELOOP_ENCRYPTION_KEY: key })!;
    const printed = `${inspect(keys, { depth: 10, showHidden: true })}\n${JSON.stringify(keys)}`;
    expect(printed).not.toContain(key);
    expect(printed).not.toContain(newKey.toString('hex'));
  });
});
