import * as fs from 'node:fs';
import * as os from 'node:os';
import { Client, Connection, type TLSConfig } from '@temporalio/client';
import { blobStoreIn } from '../payloads/blob-store';
import { waveloopDataConverter } from '../payloads/data-converter';
import type { WaveloopSettings } from '../settings';

/**
 * Connection settings shared by clients and workers: the embedded server by default, or any
 * cluster or Temporal Cloud through `TEMPORAL_ADDRESS`, `TEMPORAL_API_KEY` and the TLS variables.
 */
export interface TemporalConnectionSettings {
  address: string;
  tls?: TLSConfig | boolean;
  apiKey?: string;
}

/**
 * How to reach the configured server: its address; TLS with the client certificate
 * (`TEMPORAL_TLS_CERT`/`_KEY`), the private CA (`TEMPORAL_TLS_CA`) and the server name
 * (`TEMPORAL_TLS_SERVER_NAME`) that are set, any of which turns TLS on, as do an API key and
 * `TEMPORAL_TLS=true`; and the API key. A certificate file that cannot be read throws, naming it.
 */
export function connectionSettings(config: WaveloopSettings): TemporalConnectionSettings {
  const address = config.temporalAddress ?? config.embeddedServer.address;
  const options: TLSConfig = {
    ...(config.tlsCertPath && config.tlsKeyPath
      ? { clientCertPair: { crt: fs.readFileSync(config.tlsCertPath), key: fs.readFileSync(config.tlsKeyPath) } }
      : {}),
    ...(config.tlsCaPath ? { serverRootCACertificate: fs.readFileSync(config.tlsCaPath) } : {}),
    ...(config.tlsServerName ? { serverNameOverride: config.tlsServerName } : {}),
  };
  const tls = Object.keys(options).length > 0 ? options : config.apiKey || config.tls ? true : undefined;
  return { address, ...(config.apiKey ? { apiKey: config.apiKey } : {}), tls };
}

/**
 * A Temporal client for the configured cluster and namespace, with waveloop's payload codecs (large
 * payloads it reads may be claim checks into `<dataDir>/payloads`; with `config.encryption`, it
 * encrypts what it sends and decrypts what it reads). Its identity, which the run's history records
 * with each answer, approval and message it sends, is `<user>@<host>`. Close `client.connection`
 * when done.
 */
export async function connectClient(config: WaveloopSettings): Promise<Client> {
  const settings = connectionSettings(config);
  const connection = await Connection.connect(settings).catch((err: unknown) => {
    throw connectionFailure(settings, err);
  });
  const dataConverter = waveloopDataConverter(blobStoreIn(config.dataDir), config.encryption);
  return new Client({ connection, namespace: config.namespace, dataConverter, identity: personIdentity() });
}

/**
 * A failed connection as an error that names the address and whether TLS was on: the SDK's own
 * says neither (`Failed to connect before the deadline`, or a transport error of the worker's core).
 */
export function connectionFailure(settings: TemporalConnectionSettings, err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  const tls = settings.tls ? ' over TLS' : '';
  return new Error(`Could not connect to Temporal at ${settings.address}${tls}: ${message}`, { cause: err });
}

/** `<user>@<host>`, or Temporal's default `<pid>@<host>` where the user has no name (a container's uid). */
function personIdentity(): string {
  try {
    return `${os.userInfo().username}@${os.hostname()}`;
  } catch {
    return `${process.pid}@${os.hostname()}`;
  }
}
