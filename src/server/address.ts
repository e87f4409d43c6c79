import * as net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { EMBEDDED_ADDRESS } from '../settings';

/**
 * Reaching a Temporal server at `host:port`: reading the address, the Web UI URL on the same host,
 * and two probes, whether the port opens at all (`isServerUp`) and whether the frontend serves
 * (`waitUntilServing`).
 */

const POLL_MS = 250;

/** Splits `host:port` (IPv6 hosts in brackets); throws, naming the expected form, on anything else. */
export function parseAddress(address: string): { host: string; port: number } {
  const match = /^\[?([^\]]*?)\]?:(\d+)$/.exec(address.trim());
  const port = match ? Number(match[2]) : NaN;
  if (!match || !match[1] || !(port > 0 && port < 65536)) {
    throw new Error(`Invalid Temporal address "${address}": expected host:port, e.g. ${EMBEDDED_ADDRESS}`);
  }
  return { host: match[1], port };
}

/** The Web UI's URL on `host`, with an IPv6 host in brackets. */
export function uiUrlOf(host: string, uiPort: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${uiPort}`;
}

/** True when a TCP connection to `host:port` opens within `timeoutMs`. Says nothing about what listens. */
export function isServerUp(address: string, timeoutMs = 1000): Promise<boolean> {
  const { host, port } = parseAddress(address);
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Polls until the frontend at `address` describes the `default` namespace, which start-dev creates
 * once its services are up; an open port alone comes earlier. `failed()` reports a dead child early.
 * Throws with the last connection error once `deadline` (epoch ms) has passed.
 */
export async function waitUntilServing(
  address: string,
  deadline: number,
  failed: () => string | undefined,
): Promise<void> {
  let lastError = 'the port never opened';
  for (;;) {
    const failure = failed();
    if (failure) throw new Error(failure);
    if (await isServerUp(address, 500)) {
      let connection: Connection | undefined;
      try {
        connection = await Connection.connect({ address, connectTimeout: '2s' });
        await connection.workflowService.describeNamespace({ namespace: 'default' });
        return;
      } catch (err) {
        lastError = err instanceof Error ? err.message : String(err);
      } finally {
        await connection?.close().catch(() => undefined);
      }
    }
    if (Date.now() >= deadline) throw new Error(`not serving after the timeout (${lastError})`);
    await sleep(POLL_MS);
  }
}
