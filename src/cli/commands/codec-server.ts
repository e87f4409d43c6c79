import { InvalidArgumentError, Option, type Command } from 'commander';
import { blobStoreIn } from '../../payloads/blob-store';
import { DEFAULT_CODEC_SERVER_PORT, DEFAULT_WEB_UI_ORIGINS, startCodecServer } from '../../payloads/codec-server';
import { chainCodecs, waveloopCodecs } from '../../payloads/codecs';
import { action, note, print, settings } from '../support';

/**
 * `waveloop codec-server`: serves the workers' codec chain over HTTP for the Web UI until Ctrl-C
 * (see `payloads/codec-server.ts`).
 */

interface CodecServerCommandOptions {
  port: number;
  host: string;
  webUiOrigin: string;
}

/** Serves the configured codecs until Ctrl-C (or SIGTERM). */
async function codecServerCommand(options: CodecServerCommandOptions): Promise<number> {
  const config = settings();
  const origins = options.webUiOrigin
    .split(',')
    .map((o) => o.trim().replace(/\/+$/, ''))
    .filter(Boolean);
  const codec = chainCodecs(waveloopCodecs(blobStoreIn(config.dataDir), config.encryption));
  const { server, url } = await startCodecServer({ codec, origins, host: options.host, port: options.port, log: note });
  const keys = config.encryption;
  print(`Codec server on ${url} (POST /decode, /encode) for Web UI origins ${origins.join(', ')}.`);
  print(
    keys
      ? `Keys: ${keys.ids.map((id) => (id === keys.currentId ? `${id} (encrypts)` : id)).join(', ')}; claim checks from ${blobStoreIn(config.dataDir).dir}.`
      : `No encryption key is configured: it decodes compressed and claim-checked payloads (from ${blobStoreIn(config.dataDir).dir}) only; set WAVELOOP_ENCRYPTION_KEY to decrypt.`,
  );
  print(`In the Web UI, set the codec server (Data Encoder, the icon at the top right) to ${url}`);
  print(`or start a dev server with it: temporal server start-dev --ui-codec-endpoint ${url}`);
  note('Ctrl-C stops it.');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return 0;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new InvalidArgumentError('must be a port number (0 for any free port)');
  return port;
}

/** `waveloop codec-server [--port 8888] [--host 127.0.0.1] [--web-ui-origin …]`. */
export function register(program: Command): void {
  program
    .command('codec-server')
    .description('decode (and encode) waveloop payloads for the Temporal Web UI: encrypted, compressed, claim-checked')
    .addOption(new Option('--port <port>', 'port to listen on').argParser(parsePort).default(DEFAULT_CODEC_SERVER_PORT))
    .option('--host <host>', 'address to listen on (anyone who reaches it can decrypt)', '127.0.0.1')
    .option(
      '--web-ui-origin <origins>',
      'Web UI origins allowed to call it, comma-separated',
      DEFAULT_WEB_UI_ORIGINS.join(','),
    )
    .action(action((options: CodecServerCommandOptions) => codecServerCommand(options)));
}
