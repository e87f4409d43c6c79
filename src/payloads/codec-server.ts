import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { z } from 'zod';
import { describeIssues } from '../contract/issues';
import { metadataFromBase64, metadataToBase64 } from './bytes';

/**
 * The codec server: Temporal's remote codec protocol over HTTP, so the Web UI (and the
 * Temporal CLI's `--codec-endpoint`) can show payloads that waveloop compressed, encrypted or
 * claim-checked. `POST …/decode` and `POST …/encode` take and return `{ "payloads": [...] }`,
 * Temporal's `Payloads` message as proto3 JSON (bytes in base64); only the last part of the path
 * counts. It runs the workers' codec chain, so `/decode` also expands claim checks from the data
 * directory (the Web UI shows the full value). Anyone who can reach it can decrypt: it listens on
 * 127.0.0.1 unless told otherwise, and answers browsers only from the configured Web UI origins.
 */

export const DEFAULT_CODEC_SERVER_PORT = 8888;
/** The embedded server's Web UI, under both names a browser may use for it. */
export const DEFAULT_WEB_UI_ORIGINS = ['http://localhost:8233', 'http://127.0.0.1:8233'];
/** Requests carry batches of payloads of up to 2 MB each; anything larger is refused (413). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

const Base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'must be base64');

/** The body of both endpoints, and of their answers. */
const PayloadsJsonSchema = z.object({
  payloads: z.array(z.object({ metadata: z.record(z.string(), Base64).nullish(), data: Base64.nullish() })),
});
type PayloadJson = z.infer<typeof PayloadsJsonSchema>['payloads'][number];

const fromJson = (payload: PayloadJson): Payload => ({
  metadata: metadataFromBase64(payload.metadata ?? {}),
  data: new Uint8Array(Buffer.from(payload.data ?? '', 'base64')),
});

const toJson = (payload: Payload): PayloadJson => ({
  metadata: metadataToBase64(payload.metadata),
  data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
});

export interface CodecServerOptions {
  /** What `/encode` and `/decode` apply (the workers' chain: `chainCodecs(waveloopCodecs(store, keys))`). */
  codec: PayloadCodec;
  /** Origins whose pages may call it (CORS). A request from another origin is refused (403); requests without an origin (curl, the Temporal CLI) are served. */
  origins: readonly string[];
  /** Where failures are reported (the answer carries them too). */
  log?: (line: string) => void;
}

/** The codec server, not yet listening. */
export function createCodecServer(options: CodecServerOptions): http.Server {
  return http.createServer((req, res) => {
    handle(req, res, options).catch((err: unknown) =>
      send(res, 500, { error: `The codec server failed: ${messageOf(err)}` }),
    );
  });
}

async function handle(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  { codec, origins, log }: CodecServerOptions,
): Promise<void> {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    if (!origins.includes(origin)) {
      return send(res, 403, {
        error: `Origin ${origin} may not use this codec server: start it with --web-ui-origin ${origin}.`,
      });
    }
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'content-type, x-namespace, authorization');
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    res.setHeader('Access-Control-Max-Age', '600');
    res.setHeader('Vary', 'Origin');
  }
  if (req.method === 'OPTIONS') {
    res.writeHead(204).end();
    return;
  }
  const path = new URL(req.url ?? '/', 'http://codec-server').pathname;
  const endpoint = /\/(encode|decode)$/.exec(path)?.[1] as 'encode' | 'decode' | undefined;
  if (!endpoint)
    return send(res, 404, { error: `Nothing at ${path}: the codec server answers POST /encode and POST /decode.` });
  if (req.method !== 'POST') return send(res, 405, { error: `Use POST for /${endpoint}.` }, { Allow: 'POST, OPTIONS' });

  const body = await readBody(req);
  if (body === undefined) return send(res, 413, { error: `The body is larger than ${MAX_BODY_BYTES} bytes.` });
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (err) {
    return send(res, 400, { error: `The body is not JSON: ${messageOf(err)}` });
  }
  const parsed = PayloadsJsonSchema.safeParse(json);
  if (!parsed.success) {
    const problems = describeIssues(parsed.error.issues, 'body');
    return send(res, 400, {
      error: `The body must be {"payloads": [{"metadata": {…}, "data": "<base64>"}]}: ${problems}`,
    });
  }
  try {
    const payloads = await codec[endpoint](parsed.data.payloads.map(fromJson));
    send(res, 200, { payloads: payloads.map(toJson) });
  } catch (err) {
    // The protocol's answer to a payload the codec cannot handle (a missing key, a lost claim check).
    log?.(`/${endpoint} failed: ${messageOf(err)}`);
    send(res, 400, { error: messageOf(err) });
  }
}

/** The body as text, or undefined past `MAX_BODY_BYTES`. */
async function readBody(req: http.IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Starts the server on `host:port` (port 0: any free port) and resolves with it and its address. */
export async function startCodecServer(
  options: CodecServerOptions & { host: string; port: number },
): Promise<{ server: http.Server; url: string }> {
  const server = createCodecServer(options);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return { server, url: `http://${address.includes(':') ? `[${address}]` : address}:${port}` };
}
