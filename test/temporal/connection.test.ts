import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/settings';
import { connectionFailure, connectionSettings } from '../../src/temporal/connection';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-connection-'));
const certFile = path.join(dir, 'client.pem');
const keyFile = path.join(dir, 'client.key');
fs.writeFileSync(certFile, '-----BEGIN CERTIFICATE-----\nclient certificate\n');
fs.writeFileSync(keyFile, '-----BEGIN PRIVATE KEY-----\nclient key\n');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The connection options the environment `env` gives. */
const settingsOf = (env: Record<string, string>) => connectionSettings(loadSettings(env));

describe('connectionSettings', () => {
  it('connectionSettings: without TEMPORAL_ADDRESS, the embedded server, in plain text and without a key', () => {
    expect(settingsOf({})).toEqual({ address: '127.0.0.1:7233', tls: undefined });
    expect(settingsOf({ WAVELOOP_SERVER_PORT: '17233' })).toEqual({ address: '127.0.0.1:17233', tls: undefined });
    expect(settingsOf({ TEMPORAL_ADDRESS: 'temporal:7233' })).toEqual({ address: 'temporal:7233', tls: undefined });
  });

  it('connectionSettings: TEMPORAL_API_KEY is sent as the API key, over TLS', () => {
    expect(settingsOf({ TEMPORAL_ADDRESS: 'ns.a1b2c.tmprl.cloud:7233', TEMPORAL_API_KEY: ' key-1 ' })).toEqual({
      address: 'ns.a1b2c.tmprl.cloud:7233',
      apiKey: 'key-1',
      tls: true,
    });
  });

  it('connectionSettings: TEMPORAL_TLS=true turns TLS on without a client certificate; anything else leaves it off', () => {
    expect(settingsOf({ TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_TLS: 'true' })).toEqual({
      address: 'temporal:7233',
      tls: true,
    });
    for (const value of ['false', '', 'no'])
      expect(settingsOf({ TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_TLS: value }).tls, value).toBeUndefined();
  });

  it("connectionSettings: TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY are read from their files as the client's certificate pair (mTLS), beside an API key", () => {
    const mtls = settingsOf({
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_TLS_CERT: certFile,
      TEMPORAL_TLS_KEY: keyFile,
    });
    expect(mtls).toEqual({
      address: 'temporal:7233',
      tls: { clientCertPair: { crt: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) } },
    });
    const both = settingsOf({
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_TLS_CERT: certFile,
      TEMPORAL_TLS_KEY: keyFile,
      TEMPORAL_API_KEY: 'key-1',
    });
    expect(both.apiKey).toBe('key-1');
    expect(both.tls).toEqual(mtls.tls);
  });

  it('connectionSettings: TEMPORAL_TLS_CA (a private CA) and TEMPORAL_TLS_SERVER_NAME each turn TLS on, beside a client certificate or an API key', () => {
    const caFile = path.join(dir, 'ca.pem');
    fs.writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\nprivate CA\n');
    expect(settingsOf({ TEMPORAL_ADDRESS: '10.0.0.5:7233', TEMPORAL_TLS_CA: caFile })).toEqual({
      address: '10.0.0.5:7233',
      tls: { serverRootCACertificate: fs.readFileSync(caFile) },
    });
    expect(settingsOf({ TEMPORAL_ADDRESS: '10.0.0.5:7233', TEMPORAL_TLS_SERVER_NAME: 'temporal.internal' })).toEqual({
      address: '10.0.0.5:7233',
      tls: { serverNameOverride: 'temporal.internal' },
    });
    const all = settingsOf({
      TEMPORAL_ADDRESS: '10.0.0.5:7233',
      TEMPORAL_TLS_CA: caFile,
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
      TEMPORAL_TLS_CERT: certFile,
      TEMPORAL_TLS_KEY: keyFile,
      TEMPORAL_API_KEY: 'key-1',
    });
    expect(all).toEqual({
      address: '10.0.0.5:7233',
      apiKey: 'key-1',
      tls: {
        clientCertPair: { crt: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) },
        serverRootCACertificate: fs.readFileSync(caFile),
        serverNameOverride: 'temporal.internal',
      },
    });
    const missing = path.join(dir, 'no-ca.pem');
    expect(() => settingsOf({ TEMPORAL_TLS_CA: missing })).toThrow(missing);
  });

  it('connectionSettings: a certificate without its key, or a key without its certificate, is refused naming the missing variable', () => {
    expect(() => settingsOf({ TEMPORAL_TLS_CERT: certFile })).toThrow(
      /TEMPORAL_TLS_KEY.*must be set with TEMPORAL_TLS_CERT \(set both or neither\)/s,
    );
    expect(() => settingsOf({ TEMPORAL_TLS_KEY: keyFile })).toThrow(
      /TEMPORAL_TLS_CERT.*must be set with TEMPORAL_TLS_KEY \(set both or neither\)/s,
    );
  });

  it('connectionSettings: a certificate file that is not there fails naming the file', () => {
    const missing = path.join(dir, 'missing.pem');
    expect(() => settingsOf({ TEMPORAL_TLS_CERT: missing, TEMPORAL_TLS_KEY: keyFile })).toThrow(missing);
  });
});

describe('connectionFailure', () => {
  it('connectionFailure: names the address, and TLS when it was on, before the cause', () => {
    const cause = new Error('Failed to connect before the deadline');
    const plain = connectionFailure({ address: 'temporal:7233' }, cause);
    expect(plain.message).toBe('Could not connect to Temporal at temporal:7233: Failed to connect before the deadline');
    expect(plain.cause).toBe(cause);
    expect(connectionFailure({ address: 'temporal:7233', tls: true }, cause).message).toBe(
      'Could not connect to Temporal at temporal:7233 over TLS: Failed to connect before the deadline',
    );
  });
});
