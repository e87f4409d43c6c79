import * as net from 'node:net';

/** A TCP port on 127.0.0.1 that nothing listens on now (asked of the OS, then released). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A port for `WAVELOOP_SERVER_PORT`: free now, and so is the port 1000 above it, where the embedded
 * server's Web UI listens (a server whose UI port is taken does not start).
 */
export async function freeServerPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 1000 <= 65_535 && (await isFree(port + 1000))) return port;
  }
}

/** Whether nothing listens on `port` of 127.0.0.1 now. */
function isFree(port: number): Promise<boolean> {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
