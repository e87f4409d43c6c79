import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * A throwaway PostgreSQL server for tests, from the machine's own binaries (Debian's package, or
 * `initdb` on PATH): a fresh cluster in a temporary directory on a free loopback port, trusting local
 * connections. Undefined when the machine has no PostgreSQL: tests that need one say they were
 * skipped. Run as root, the server runs as the `postgres` user, as PostgreSQL requires.
 */
export interface TestPostgres {
  url: string;
  stop(): void;
}

/** Where the machine's PostgreSQL binaries are, if it has them. */
export function postgresBinaries(): string | undefined {
  const onPath = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  if (onPath) return path.dirname(onPath);
  const debian = '/usr/lib/postgresql';
  if (!fs.existsSync(debian)) return undefined;
  const version = fs.readdirSync(debian).sort().at(-1);
  return version && fs.existsSync(path.join(debian, version, 'bin', 'initdb'))
    ? path.join(debian, version, 'bin')
    : undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export async function startPostgres(): Promise<TestPostgres | undefined> {
  const bin = postgresBinaries();
  if (!bin) return undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'waveloop-pg-'));
  const root = process.getuid?.() === 0;
  if (root) execFileSync('chown', ['postgres:postgres', dir]);
  const as = (command: string, args: string[]) =>
    root
      ? execFileSync('runuser', ['-u', 'postgres', '--', path.join(bin, command), ...args], { stdio: 'pipe' })
      : execFileSync(path.join(bin, command), args, { stdio: 'pipe' });
  const data = path.join(dir, 'data');
  as('initdb', ['-D', data, '-A', 'trust', '-U', 'waveloop', '--no-sync']);
  const port = await freePort();
  as('pg_ctl', [
    '-D',
    data,
    '-w',
    '-l',
    path.join(dir, 'log'),
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
    'start',
  ]);
  return {
    url: `postgres://waveloop@127.0.0.1:${port}/postgres`,
    stop: () => {
      try {
        as('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
