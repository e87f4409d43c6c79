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

export function connectionSettings(config: WaveloopSettings): TemporalConnectionSettings {
  const address = config.temporalAddress ?? config.embeddedServer.address;
  if (config.tlsCertPath && config.tlsKeyPath) {
    return {
      address,
      apiKey: config.apiKey,
      tls: { clientCertPair: { crt: fs.readFileSync(config.tlsCertPath), key: fs.readFileSync(config.tlsKeyPath) } },
    };
  }
  if (config.apiKey) return { address, apiKey: config.apiKey, tls: true };
  return { address, tls: config.tls || undefined };
}

/**
 * A Temporal client for the configured cluster and namespace, with waveloop's payload codecs (large
 * payloads it reads may be claim checks into `<dataDir>/payloads`; with `config.encryption`, it
 * encrypts what it sends and decrypts what it reads). Its identity, which the run's history records
 * with each answer, approval and message it sends, is `<user>@<host>`. Close `client.connection`
 * when done.
 */
export async function connectClient(config: WaveloopSettings): Promise<Client> {
  const connection = await Connection.connect(connectionSettings(config));
  const dataConverter = waveloopDataConverter(blobStoreIn(config.dataDir), config.encryption);
  return new Client({ connection, namespace: config.namespace, dataConverter, identity: personIdentity() });
}

/** `<user>@<host>`, or Temporal's default `<pid>@<host>` where the user has no name (a container's uid). */
function personIdentity(): string {
  try {
    return `${os.userInfo().username}@${os.hostname()}`;
  } catch {
    return `${process.pid}@${os.hostname()}`;
  }
}
