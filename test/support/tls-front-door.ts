import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TLSSocket } from 'node:tls';

/** One gRPC call that came through the front door. */
export interface FrontDoorCall {
  /** The method, e.g. `PollWorkflowTaskQueue`. */
  method: string;
  /** The `authorization` header (`Bearer <key>` from an API key), if any. */
  authorization?: string;
  /** The common name of the client certificate the caller presented, if any. */
  clientCertificate?: string;
}

/** A client certificate the front door's CA signed: the files `TEMPORAL_TLS_CERT` and `TEMPORAL_TLS_KEY` name. */
export interface ClientCertificate {
  cert: string;
  key: string;
}

/**
 * A TLS front door to the tests' plain Temporal dev server (which cannot serve TLS itself): an HTTP/2
 * server on 127.0.0.1 with a certificate for `localhost` from a CA of its own, which asks callers for
 * a client certificate of that CA (not required: it records who presented which), and relays each
 * gRPC call to the server. It records every call: its method, API key and client certificate.
 * Processes trust its CA through `TEMPORAL_TLS_CA`, as they would a cluster's private CA. The
 * certificates are made with the `openssl` command.
 */
export class TlsFrontDoor {
  readonly calls: FrontDoorCall[] = [];
  private readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-tls-'));
  private server: http2.Http2SecureServer | undefined;
  private upstream: http2.ClientHttp2Session | undefined;
  private port = 0;

  constructor(private readonly upstreamAddress: string) {}

  /** `localhost:<port>`, for `TEMPORAL_ADDRESS`. */
  get address(): string {
    return `localhost:${this.port}`;
  }

  /** The CA's certificate, for `TEMPORAL_TLS_CA`. */
  get caFile(): string {
    return path.join(this.dir, 'ca.pem');
  }

  async start(): Promise<this> {
    this.openssl(
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=waveloop test CA'],
    );
    this.sign('server', 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth');
    this.upstream = http2.connect(`http://${this.upstreamAddress}`);
    this.upstream.on('error', () => undefined);
    const server = http2.createSecureServer({
      key: fs.readFileSync(path.join(this.dir, 'server.key')),
      cert: fs.readFileSync(path.join(this.dir, 'server.pem')),
      ca: fs.readFileSync(this.caFile),
      requestCert: true,
      rejectUnauthorized: false,
    });
    server.on('stream', (stream, headers) => this.relay(stream, headers));
    server.on('sessionError', () => undefined);
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  /** A client certificate with common name `name`, signed by the front door's CA. */
  clientCertificate(name: string): ClientCertificate {
    this.sign(name, 'extendedKeyUsage=clientAuth', name);
    return { cert: path.join(this.dir, `${name}.pem`), key: path.join(this.dir, `${name}.key`) };
  }

  async stop(): Promise<void> {
    this.upstream?.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private relay(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
    const peer = (stream.session?.socket as TLSSocket | undefined)?.getPeerCertificate();
    this.calls.push({
      method: String(headers[':path']).split('/').pop()!,
      ...(headers.authorization ? { authorization: headers.authorization } : {}),
      ...(peer?.subject?.CN ? { clientCertificate: String(peer.subject.CN) } : {}),
    });
    const { ':authority': _authority, ':scheme': _scheme, ...forwarded } = headers;
    const request = this.upstream!.request(forwarded);
    let trailers: http2.IncomingHttpHeaders = {};
    let trailersOnly = false;
    request.on('response', (response) => {
      if (stream.destroyed) return;
      // A gRPC error without a body comes as headers only, with the status in them.
      trailersOnly = 'grpc-status' in response;
      stream.respond(response, trailersOnly ? { endStream: true } : { waitForTrailers: true });
    });
    request.on('trailers', (received) => (trailers = received));
    request.on('data', (chunk: Buffer) => !stream.destroyed && stream.write(chunk));
    request.on('end', () => !trailersOnly && !stream.destroyed && stream.end());
    request.on('error', () => stream.destroy());
    stream.on('wantTrailers', () => stream.sendTrailers(trailers));
    stream.on('close', () => request.close());
    stream.on('error', () => request.close());
    stream.pipe(request);
  }

  /** A key and a certificate `<name>.key`, `<name>.pem` signed by the CA, with these X.509 extensions. */
  private sign(name: string, extensions: string, commonName = 'localhost'): void {
    fs.writeFileSync(path.join(this.dir, `${name}.ext`), `${extensions}\n`);
    this.openssl(
      ...['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${commonName}`],
    );
    this.openssl(
      ...['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial'],
      ...['-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`],
    );
  }

  private openssl(...args: string[]): void {
    execFileSync('openssl', args, { cwd: this.dir, stdio: ['ignore', 'ignore', 'pipe'] });
  }
}
