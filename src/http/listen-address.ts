/** Where `waveloop serve` listens: `host:port` (`[::1]:8080` for IPv6), and whether only this machine can reach it. */

/** The default address of `waveloop serve`. */
export const DEFAULT_HTTP_ADDRESS = '127.0.0.1:8080';

/** `host:port` read; a `TypeError` saying what is wrong when it is not one. */
export function parseListenAddress(text: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[3]);
  if (!match || port > 65535)
    throw new TypeError(`listen address ${text}: use host:port, e.g. ${DEFAULT_HTTP_ADDRESS}`);
  return { host: match[1] ?? match[2]!, port };
}

/** Whether `host` is this machine only: `localhost`, 127.0.0.0/8 or `::1`. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
