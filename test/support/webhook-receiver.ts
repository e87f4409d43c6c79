import { createHmac, timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a webhook receiver got: its path, headers and raw body, and the status it answered. */
export interface ReceivedWebhook {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  answered: number;
}

/**
 * A real HTTP receiver of webhooks (node:http) on a free port of 127.0.0.1: it keeps every request
 * and answers each with `answer(request)` (default 200).
 */
export async function webhookReceiver(answer: (path: string, count: number) => number = () => 200) {
  const received: ReceivedWebhook[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      const status = answer(path, received.filter((r) => r.path === path).length);
      received.push({ path, headers: req.headers, raw, answered: status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Whether `header` (`t=<seconds>,v1=<hex>`) signs `raw` with `secret`, as a receiver checks it. */
export function signatureHolds(header: string | undefined, raw: string, secret: string): boolean {
  const parts = Object.fromEntries((header ?? '').split(',').map((part) => part.split('=', 2) as [string, string]));
  if (!parts.t || !parts.v1) return false;
  const expected = createHmac('sha256', secret).update(`${parts.t}.${raw}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
