import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createHttpApp, type HttpAppOptions } from './app';

/** A running `waveloop serve`. */
export interface HttpServer {
  /** `http://host:port`, the port it got (for port 0). */
  url: string;
  /** Stops listening and ends open connections (event streams too). */
  close(): Promise<void>;
}

/**
 * Serves `createHttpApp(options)` on `host:port` (port 0: any free one) with Node's HTTP server;
 * resolves once it listens, and rejects when it cannot (the port is taken).
 */
export async function startHttpServer(options: HttpAppOptions & { host: string; port: number }): Promise<HttpServer> {
  const app = createHttpApp(options);
  const server = serve({ fetch: app.fetch, hostname: options.host, port: options.port });
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    server.once('error', reject);
    server.once('listening', () => resolve(server.address() as AddressInfo));
  });
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
