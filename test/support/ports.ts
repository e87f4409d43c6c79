import * as net from 'node:net';

/** A TCP port on 127.0.0.1 that nothing listens on now (asked of the OS, then released). */
export async function freePort(): Promise<number> {
  const port = await listenAndRelease(0);
  if (port === undefined) throw new Error('The OS gave no free port on 127.0.0.1.');
  return port;
}

/**
 * A port for `WAVELOOP_SERVER_PORT`: free now, and so is the port 1000 above it, where the embedded
 * server's Web UI listens (a server whose UI port is taken does not start).
 */
export async function freeServerPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 1000 <= 65_535 && (await listenAndRelease(port + 1000)) !== undefined) return port;
  }
}

/** Listens on `port` of 127.0.0.1 (0: any) and lets it go: the port it got, or undefined when it is taken. */
function listenAndRelease(port: number): Promise<number | undefined> {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const bound = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(bound));
    });
  });
}
