import { isIpAddress, nonPublicAddress } from './address';
import { targetUrl } from './webhooks';

/**
 * What webhooks a run's own input may name (docs/webhooks.md#what-a-run-may-name): the URLs of
 * `WAVELOOP_WEBHOOK_ALLOW`. The operator's URLs (the worker's `WAVELOOP_WEBHOOKS`, an agent's
 * `webhooks`) are trusted and never checked here; a run's, a goal tree's and a schedule's are.
 */

/** The variable that lists them. */
export const WEBHOOK_ALLOW_VARIABLE = 'WAVELOOP_WEBHOOK_ALLOW';

/**
 * One entry of the allow-list:
 * - `hooks.example.com`, `127.0.0.1:9000`, `[::1]:9000`: a host, on any port or on the one given,
 *   with any scheme;
 * - `https://ops.example.com/waveloop/`: a URL prefix: the same scheme, host and port, and a path
 *   under it (`/waveloop` takes `/waveloop` and `/waveloop/…`, never `/waveloopx`);
 * - `*.example.com`: any host under that domain; `*`: any URL. What these take must resolve to
 *   public addresses only: only an entry that names a host lets a run name a loopback, link-local
 *   or private address.
 */
type AllowEntry =
  | { kind: 'any' }
  | { kind: 'domain'; suffix: string }
  | { kind: 'host'; hostname: string; port?: string }
  | { kind: 'prefix'; origin: string; path: string };

/** Why `entry` cannot be an entry of `WAVELOOP_WEBHOOK_ALLOW`, or undefined when it can. */
export function webhookAllowEntryProblem(entry: string): string | undefined {
  const parsed = parseEntry(entry);
  return typeof parsed === 'string' ? parsed : undefined;
}

function parseEntry(text: string): AllowEntry | string {
  const entry = text.trim();
  const wrong = (why: string) =>
    `"${entry}" is not a host (hooks.example.com, 127.0.0.1:9000), a URL prefix (https://ops.example.com/hooks/), *.domain or *: ${why}`;
  if (entry === '*') return { kind: 'any' };
  if (entry.includes('://')) {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      return wrong('not a URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return wrong('a prefix is an http(s) URL');
    if (url.username || url.password || url.search || url.hash)
      return wrong('a prefix has no user name, password, query or fragment');
    return { kind: 'prefix', origin: url.origin, path: url.pathname };
  }
  const domain = entry.startsWith('*.');
  const rest = domain ? entry.slice(2) : entry;
  if (rest === '' || /[/?#@*\s]/.test(rest)) return wrong('a host has no path, query, user or wildcard inside');
  let url: URL;
  try {
    url = new URL(`http://${rest}`);
  } catch {
    return wrong(rest.includes(':') && !rest.startsWith('[') ? 'write an IPv6 address in brackets' : 'not a host');
  }
  const port = /^(?:\[[^\]]*\]|[^:]*):(\d+)$/.exec(rest)?.[1];
  if (domain) return port ? wrong('*.domain takes no port') : { kind: 'domain', suffix: url.hostname };
  return { kind: 'host', hostname: url.hostname, ...(port ? { port: String(Number(port)) } : {}) };
}

/** The entry of `allow` that takes `target`, and whether it names its host; undefined when none does. */
function entryFor(target: URL, allow: readonly string[]): { names: boolean } | undefined {
  let wildcard = false;
  for (const text of allow) {
    const entry = parseEntry(text);
    if (typeof entry === 'string') continue;
    if (entry.kind === 'host') {
      if (entry.hostname === target.hostname && (entry.port === undefined || entry.port === portOf(target)))
        return { names: true };
    } else if (entry.kind === 'prefix') {
      if (entry.origin === target.origin && underPath(target.pathname, entry.path)) return { names: true };
    } else if (entry.kind === 'domain') {
      if (target.hostname.endsWith(`.${entry.suffix}`)) wildcard = true;
    } else wildcard = true;
  }
  return wildcard ? { names: false } : undefined;
}

/** The port a request to `url` goes to. */
function portOf(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

function underPath(path: string, prefix: string): boolean {
  return prefix.endsWith('/') ? path.startsWith(prefix) : path === prefix || path.startsWith(`${prefix}/`);
}

/** All the addresses a host name resolves to (node:dns `lookup` with `all`); it throws when it does not resolve. */
export type ResolveHost = (hostname: string) => Promise<readonly string[]>;

/**
 * Why the webhook `url`, named by a run's input, may not be told, or undefined when it may: it
 * must match an entry of `allow` (`WAVELOOP_WEBHOOK_ALLOW`). Taken by an entry that names its host
 * (a host, a URL prefix), it may point anywhere; taken only by `*` or `*.domain`, its host (an IP
 * address as written, `localhost`, or every address `resolve` gives for its name) must be public:
 * not loopback, link-local, private or otherwise reserved (`nonPublicAddress`). What `resolve`
 * throws (a name that does not resolve) is thrown: the caller says what that means.
 */
export async function runWebhookRefusal(
  url: string,
  allow: readonly string[],
  resolve: ResolveHost,
): Promise<string | undefined> {
  const named = url.trim();
  let target: URL;
  try {
    target = new URL(targetUrl(named));
  } catch {
    return `The webhook "${named}" is not a URL.`;
  }
  const entry = entryFor(target, allow);
  if (!entry)
    return allow.length === 0
      ? `The webhook ${named} is refused: a run may name a webhook only when ${WEBHOOK_ALLOW_VARIABLE} allows it, and it is not set (the operator sets it to the hosts or URL prefixes runs may name).`
      : `The webhook ${named} is refused: ${WEBHOOK_ALLOW_VARIABLE} names neither its host (${target.host}) nor a URL prefix of it.`;
  if (entry.names) return undefined;
  const host = target.hostname.replace(/\.$/, '');
  const refused = (kind: string, seen: string) =>
    `The webhook ${named} is refused: it points at a ${kind} address (${seen}), and a run may name one only when ${WEBHOOK_ALLOW_VARIABLE} names its host (${target.host}) or a URL prefix of it.`;
  if (host === 'localhost' || host.endsWith('.localhost')) return refused('loopback', host);
  if (isIpAddress(host)) {
    const kind = nonPublicAddress(host);
    return kind ? refused(kind, host) : undefined;
  }
  for (const address of await resolve(host)) {
    const kind = nonPublicAddress(address);
    if (kind) return refused(kind, `${host} → ${address}`);
  }
  return undefined;
}
