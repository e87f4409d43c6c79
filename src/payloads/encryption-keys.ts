import { createHash, createSecretKey, type KeyObject } from 'node:crypto';
import { z } from 'zod';

/** AES-256 keys are 32 bytes. */
const KEY_BYTES = 32;

/**
 * The AES-256 keys of a process, by id. New payloads are encrypted with the current key; with no
 * current key, encryption is off and the keys only decrypt (what older runs hold). Every payload
 * names the id of the key that encrypted it, so a key decrypts its payloads for as long as it is
 * given (as the current key or an older one). Key bytes are kept as `KeyObject`s, which print as
 * `SecretKeyObject` and serialise as `{}`: logging a config never shows a key.
 */
export class EncryptionKeys {
  private readonly keys: ReadonlyMap<string, KeyObject>;

  /** `keys` holds every key by id, the current one included. Throws when a key is not 32 bytes. */
  constructor(
    readonly currentId: string | undefined,
    keys: ReadonlyMap<string, Uint8Array>,
  ) {
    if (currentId !== undefined && !keys.has(currentId))
      throw new Error(`The current encryption key id "${currentId}" names no key.`);
    for (const [id, key] of keys) {
      if (key.length !== KEY_BYTES)
        throw new Error(`The encryption key with id "${id}" has ${key.length} bytes; AES-256 needs ${KEY_BYTES}.`);
    }
    this.keys = new Map([...keys].map(([id, key]) => [id, createSecretKey(key)]));
  }

  /** Keys with derived ids (`keyIdOf`): `current` encrypts (none: decryption only), all of them decrypt. */
  static derive(current: Uint8Array | undefined, older: readonly Uint8Array[] = []): EncryptionKeys {
    const all = [...(current ? [current] : []), ...older];
    return new EncryptionKeys(current && keyIdOf(current), new Map(all.map((key) => [keyIdOf(key), key])));
  }

  /** The key with this id, if it is one of these. */
  key(id: string): KeyObject | undefined {
    return this.keys.get(id);
  }

  /** The ids of all keys, the current one first. */
  get ids(): string[] {
    return [...this.keys.keys()].sort((a, b) => Number(b === this.currentId) - Number(a === this.currentId));
  }
}

/** The default id of a key: the first 16 hex digits of its SHA-256 (`base64 -d <<< "$KEY" | sha256sum | cut -c1-16`). */
export function keyIdOf(key: Uint8Array): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

const KEY_ADVICE = 'use 32 random bytes in base64, e.g. the output of `openssl rand -base64 32`';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const KEY_ID_RULE = "1 to 64 letters, digits, '.', '_' or '-'";

/** What is wrong with a key's text, or its bytes. Messages never quote the key. */
function parseKey(text: string): { problem: string } | { key: Buffer } {
  if (!BASE64.test(text)) return { problem: `is not base64; ${KEY_ADVICE}` };
  const key = Buffer.from(text, 'base64');
  if (key.length !== KEY_BYTES)
    return { problem: `decodes to ${key.length} bytes, and AES-256 needs ${KEY_BYTES}; ${KEY_ADVICE}` };
  return { key };
}

const KeySchema = z.string().transform((text, ctx) => {
  const parsed = parseKey(text);
  if ('key' in parsed) return parsed.key;
  ctx.addIssue({ code: 'custom', message: parsed.problem });
  return z.NEVER;
});

/** `[id:]key, …`: older keys, each with its id or with the derived one. */
const KeyListSchema = z.string().transform((text, ctx) => {
  const entries: Array<{ id: string; key: Buffer }> = [];
  for (const [index, entry] of text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)
    .entries()) {
    const colon = entry.indexOf(':');
    const [id, keyText] = colon < 0 ? [undefined, entry] : [entry.slice(0, colon), entry.slice(colon + 1)];
    const parsed = parseKey(keyText);
    // An invalid id is not quoted: it may be a key pasted in the wrong place.
    const validId = id === undefined || KEY_ID.test(id);
    const where = `entry ${index + 1}${id !== undefined && validId ? ` (id "${id}")` : ''}`;
    if (!validId) ctx.addIssue({ code: 'custom', message: `${where}: the id before ':' must be ${KEY_ID_RULE}` });
    else if ('problem' in parsed) ctx.addIssue({ code: 'custom', message: `${where}: the key ${parsed.problem}` });
    else entries.push({ id: id ?? keyIdOf(parsed.key), key: parsed.key });
  }
  return entries;
});

/**
 * The encryption settings of the environment: `WAVELOOP_ENCRYPTION_KEY` (the current key, base64 of
 * 32 bytes), `WAVELOOP_ENCRYPTION_KEY_ID` (its id; default `keyIdOf(key)`) and
 * `WAVELOOP_DECRYPTION_KEYS` (older keys, comma-separated `[id:]key`). Blank values count as unset.
 */
const EncryptionEnvSchema = z
  .object({
    WAVELOOP_ENCRYPTION_KEY: KeySchema.optional(),
    WAVELOOP_ENCRYPTION_KEY_ID: z.string().regex(KEY_ID, `must be ${KEY_ID_RULE}`).optional(),
    WAVELOOP_DECRYPTION_KEYS: KeyListSchema.optional(),
  })
  .transform((env, ctx): EncryptionKeys | undefined => {
    const current = env.WAVELOOP_ENCRYPTION_KEY;
    if (env.WAVELOOP_ENCRYPTION_KEY_ID && !current) {
      ctx.addIssue({
        code: 'custom',
        path: ['WAVELOOP_ENCRYPTION_KEY_ID'],
        message: 'is set, but WAVELOOP_ENCRYPTION_KEY is not',
      });
      return z.NEVER;
    }
    const currentId = current && (env.WAVELOOP_ENCRYPTION_KEY_ID ?? keyIdOf(current));
    const entries = [...(current ? [{ id: currentId!, key: current }] : []), ...(env.WAVELOOP_DECRYPTION_KEYS ?? [])];
    if (entries.length === 0) return undefined;
    const keys = new Map<string, Buffer>();
    for (const { id, key } of entries) {
      if (keys.get(id)?.equals(key) === false) {
        ctx.addIssue({
          code: 'custom',
          path: ['WAVELOOP_DECRYPTION_KEYS'],
          message: `gives id "${id}" to a second, different key`,
        });
        return z.NEVER;
      }
      keys.set(id, key);
    }
    return new EncryptionKeys(currentId, keys);
  });

/** The keys the environment configures (undefined: none, payloads are not encrypted). Throws a `ZodError` that says what to fix. */
export function encryptionKeysFromEnv(env: Record<string, string | undefined>): EncryptionKeys | undefined {
  const blank = (name: string) => (env[name]?.trim() ? env[name].trim() : undefined);
  return EncryptionEnvSchema.parse({
    WAVELOOP_ENCRYPTION_KEY: blank('WAVELOOP_ENCRYPTION_KEY'),
    WAVELOOP_ENCRYPTION_KEY_ID: blank('WAVELOOP_ENCRYPTION_KEY_ID'),
    WAVELOOP_DECRYPTION_KEYS: blank('WAVELOOP_DECRYPTION_KEYS'),
  });
}
