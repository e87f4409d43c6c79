import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import type * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blobStoreIn } from '../../src/payloads/blob-store';
import { metadataToBase64 } from '../../src/payloads/bytes';
import { DEFAULT_WEB_UI_ORIGINS, startCodecServer } from '../../src/payloads/codec-server';
import { chainCodecs, waveloopCodecs } from '../../src/payloads/codecs';
import { EncryptionKeys, keyIdOf } from '../../src/payloads/encryption-keys';
import { waveloop, waveloopLive } from '../support/cli';
import { eventuallyMatches } from '../support/wait';

const key = randomBytes(32);
const keys = EncryptionKeys.derive(key);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-codec-server-'));
const PERSONAL = { name: 'Bob Martin', email: 'bob.martin@initech.example' };

/** `{ payloads: [...] }` as the Web UI sends it: the value as a `json/plain` payload, in proto3 JSON. */
function jsonPayloads(value: unknown) {
  const payload = defaultPayloadConverter.toPayload(value);
  return {
    payloads: [{ metadata: metadataToBase64(payload.metadata), data: Buffer.from(payload.data!).toString('base64') }],
  };
}

const fromJsonPayload = (payload: { metadata: Record<string, string>; data: string }) =>
  defaultPayloadConverter.fromPayload({
    metadata: Object.fromEntries(Object.entries(payload.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
    data: Buffer.from(payload.data, 'base64'),
  });

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

describe('waveloop codec-server', () => {
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    const codec = chainCodecs(waveloopCodecs(blobStoreIn(dataDir), keys));
    ({ server, url } = await startCodecServer({ codec, origins: DEFAULT_WEB_UI_ORIGINS, host: '127.0.0.1', port: 0 }));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('codec server: /encode encrypts, /decode gives the payload back (at any depth of path)', async () => {
    const encoded = await post(`${url}/encode`, jsonPayloads(PERSONAL));
    expect(encoded.status).toBe(200);
    const [payload] = encoded.body.payloads;
    expect(Buffer.from(payload.metadata.encoding, 'base64').toString()).toBe('binary/encrypted');
    expect(Buffer.from(payload.metadata['encryption-key-id'], 'base64').toString()).toBe(keyIdOf(key));
    expect(Buffer.from(payload.data, 'base64').toString('latin1')).not.toContain('initech');

    const decoded = await post(`${url}/default/decode`, encoded.body, { 'x-namespace': 'default' });
    expect(decoded.status).toBe(200);
    expect(fromJsonPayload(decoded.body.payloads[0])).toEqual(PERSONAL);
  });

  it('codec server: /decode expands claim checks from the data directory', async () => {
    const large = randomBytes(3 * 1024 * 1024).toString('base64');
    const encoded = await post(`${url}/encode`, jsonPayloads(large));
    expect(Buffer.from(encoded.body.payloads[0].metadata.encoding, 'base64').toString()).toBe(
      'binary/waveloop-claim-check',
    );
    const decoded = await post(`${url}/decode`, encoded.body);
    expect(fromJsonPayload(decoded.body.payloads[0])).toBe(large);
  });

  it('codec server: the CORS preflight of the Web UI is answered with its origin, methods and headers', async () => {
    for (const origin of DEFAULT_WEB_UI_ORIGINS) {
      const response = await fetch(`${url}/decode`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-namespace',
        },
      });
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
      expect(response.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
      expect(response.headers.get('access-control-allow-headers')).toBe('content-type, x-namespace, authorization');
    }
    const decoded = await post(`${url}/decode`, jsonPayloads('hi'), { origin: 'http://localhost:8233' });
    expect(decoded.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
  });

  it('codec server: a page of another origin is refused with the option to allow it', async () => {
    const refused = await post(`${url}/decode`, jsonPayloads('hi'), { origin: 'http://evil.example' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe(
      'Origin http://evil.example may not use this codec server: start it with --web-ui-origin http://evil.example.',
    );
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('codec server: a body that is not JSON, or not payloads, is a 400 that says why; other paths are 404', async () => {
    const notJson = await post(`${url}/decode`, '{"payloads": [');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toMatch(/^The body is not JSON: /);

    const badShape = await post(`${url}/decode`, { payloads: [{ metadata: { encoding: 'not base64!' }, data: 5 }] });
    expect(badShape.status).toBe(400);
    expect(badShape.body.error).toMatch(
      /^The body must be \{"payloads": \[\{"metadata": \{…\}, "data": "<base64>"\}\]\}: /,
    );
    expect(badShape.body.error).toContain('payloads.0.metadata.encoding: must be base64');
    expect(badShape.body.error).toContain('payloads.0.data:');

    expect((await post(`${url}/decode`, {})).body.error).toContain('payloads:');
    const missing = await post(`${url}/transcode`, jsonPayloads('hi'));
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('Nothing at /transcode: the codec server answers POST /encode and POST /decode.');
    expect((await fetch(`${url}/decode`)).status).toBe(405);
  });

  it('codec server: a payload encrypted with a key it does not hold is a 400 naming the key id', async () => {
    const other = EncryptionKeys.derive(randomBytes(32));
    const { server: otherServer, url: otherUrl } = await startCodecServer({
      codec: chainCodecs(waveloopCodecs(blobStoreIn(dataDir), other)),
      origins: DEFAULT_WEB_UI_ORIGINS,
      host: '127.0.0.1',
      port: 0,
    });
    try {
      const encoded = await post(`${url}/encode`, jsonPayloads(PERSONAL));
      const refused = await post(`${otherUrl}/decode`, encoded.body);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe(
        `A payload is encrypted with the key of id "${keyIdOf(key)}", and the configured keys have ids "${other.currentId}": set WAVELOOP_ENCRYPTION_KEY, or add the key to WAVELOOP_DECRYPTION_KEYS.`,
      );
    } finally {
      await new Promise((resolve) => otherServer.close(resolve));
    }
  });

  it('waveloop codec-server: the command prints its address and how to point the Web UI at it, and serves the configured key', async () => {
    const server = waveloopLive(['codec-server', '--port', '0'], {
      WAVELOOP_DATA_DIR: dataDir,
      WAVELOOP_ENCRYPTION_KEY: key.toString('base64'),
    });
    try {
      const [, cliUrl] = await eventuallyMatches(
        server.stdout,
        /Codec server on (http:\/\/127\.0\.0\.1:\d+) [\s\S]*--ui-codec-endpoint/,
      );
      const stdout = server.stdout();
      expect(stdout).toContain(`for Web UI origins ${DEFAULT_WEB_UI_ORIGINS.join(', ')}`);
      expect(stdout).toContain(`Keys: ${keyIdOf(key)} (encrypts)`);
      expect(stdout).toContain(`temporal server start-dev --ui-codec-endpoint ${cliUrl}`);
      expect(stdout + server.stderr()).not.toContain(key.toString('base64'));

      const encoded = await post(`${url}/encode`, jsonPayloads(PERSONAL));
      const decoded = await post(`${cliUrl}/decode`, encoded.body);
      expect(fromJsonPayload(decoded.body.payloads[0])).toEqual(PERSONAL);
    } finally {
      server.kill('SIGTERM');
    }
    expect((await server.done).code).toBe(0);
  });

  it('waveloop codec-server: a malformed key stops it at once with a message that names the variable', async () => {
    const { code, stderr } = await waveloop(['codec-server', '--port', '0'], {
      WAVELOOP_DATA_DIR: dataDir,
      WAVELOOP_ENCRYPTION_KEY: 'c2hvcnQ=',
    });
    expect(code).toBe(2);
    expect(stderr).toContain(
      'WAVELOOP_ENCRYPTION_KEY: decodes to 5 bytes, and AES-256 needs 32; use 32 random bytes in base64',
    );
    expect(stderr).not.toContain('c2hvcnQ=');
  });
});
