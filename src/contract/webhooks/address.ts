/**
 * Which IP addresses are not on the public internet: where a webhook a run names may not point
 * unless the operator names its host (docs/webhooks.md#what-a-run-may-name). Pure: the caller
 * resolves host names (node:dns) and hands the addresses here.
 */

/**
 * What kind of non-public address `ip` is (`loopback`, `link-local`, `private`, …), or undefined
 * for a public one. Takes IPv4 (`169.254.169.254`) and IPv6 (`::1`, `[fe80::1]`, `fe80::1%eth0`),
 * and looks inside IPv6 forms that carry an IPv4 address (mapped `::ffff:a.b.c.d`, compatible
 * `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, 6to4 `2002:AABB:CCDD::`) at the address they carry. What
 * is no IP address at all is `not an IP address`.
 */
export function nonPublicAddress(ip: string): string | undefined {
  const text = ip.trim().replace(/^\[(.*)\]$/, '$1');
  const v4 = ipv4Bytes(text);
  if (v4) return nonPublicIpv4(v4);
  // A zone (`%eth0`) is only ever given to a link-local address.
  if (text.includes('%')) return 'link-local';
  const groups = ipv6Groups(text);
  if (!groups) return 'not an IP address';
  return nonPublicIpv6(groups);
}

/** Whether `text` is an IP address (IPv6 with or without brackets), not a host name. */
export function isIpAddress(text: string): boolean {
  const bare = text.trim().replace(/^\[(.*)\]$/, '$1');
  return ipv4Bytes(bare) !== undefined || ipv6Groups(bare.replace(/%.*$/, '')) !== undefined;
}

/** The four bytes of a dotted-decimal IPv4 address, or undefined. */
function ipv4Bytes(text: string): number[] | undefined {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!match) return undefined;
  const bytes = match.slice(1).map(Number);
  return bytes.every((byte) => byte <= 255) ? bytes : undefined;
}

/** The kind of a non-public IPv4 address (the special-purpose ranges of RFC 6890), or undefined. */
function nonPublicIpv4([a, b, c]: number[]): string | undefined {
  if (a === 0) return 'unspecified ("this network", 0.0.0.0/8)';
  if (a === 10) return 'private (10.0.0.0/8)';
  if (a === 100 && b >= 64 && b <= 127) return 'shared (carrier-grade NAT, 100.64.0.0/10)';
  if (a === 127) return 'loopback (127.0.0.0/8)';
  if (a === 169 && b === 254) return 'link-local (169.254.0.0/16, where cloud metadata answers)';
  if (a === 172 && b >= 16 && b <= 31) return 'private (172.16.0.0/12)';
  if (a === 192 && b === 0 && c === 0) return 'reserved (192.0.0.0/24)';
  if (a === 192 && b === 168) return 'private (192.168.0.0/16)';
  if (a === 198 && (b === 18 || b === 19)) return 'reserved (198.18.0.0/15)';
  if (a >= 224 && a <= 239) return 'multicast (224.0.0.0/4)';
  if (a >= 240) return 'reserved (240.0.0.0/4)';
  return undefined;
}

function nonPublicIpv6(g: number[]): string | undefined {
  const zeroUpTo = (n: number) => g.slice(0, n).every((group) => group === 0);
  const carried = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
  const inside = (form: string, bytes: number[]) => {
    const kind = nonPublicIpv4(bytes);
    return kind && `${kind}, as ${form} ${bytes.join('.')}`;
  };
  if (zeroUpTo(8)) return 'unspecified (::)';
  if (zeroUpTo(7) && g[7] === 1) return 'loopback (::1)';
  if (zeroUpTo(5) && g[5] === 0xffff) return inside('IPv4-mapped', carried(g[6], g[7]));
  if (zeroUpTo(6)) return inside('IPv4-compatible', carried(g[6], g[7])) ?? 'reserved (IPv4-compatible ::/96)';
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((group) => group === 0))
    return inside('NAT64', carried(g[6], g[7]));
  if (g[0] === 0x2002) return inside('6to4', carried(g[1], g[2]));
  if ((g[0] & 0xfe00) === 0xfc00) return 'unique local, private (fc00::/7)';
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local (fe80::/10)';
  if ((g[0] & 0xffc0) === 0xfec0) return 'site-local (fec0::/10)';
  if ((g[0] & 0xff00) === 0xff00) return 'multicast (ff00::/8)';
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (with `::` and a dotted IPv4 tail), or undefined. */
function ipv6Groups(text: string): number[] | undefined {
  let rest = text.toLowerCase();
  const tail: number[] = [];
  const dotted = /(?:^|:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(rest);
  if (dotted) {
    const bytes = ipv4Bytes(dotted[1]);
    if (!bytes) return undefined;
    tail.push((bytes[0] << 8) | bytes[1], (bytes[2] << 8) | bytes[3]);
    rest = rest.slice(0, -dotted[1].length);
    if (rest.endsWith(':') && !rest.endsWith('::')) rest = rest.slice(0, -1);
  }
  const halves = rest.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':'));
  const head = groupsOf(halves[0]);
  const back = halves.length === 2 ? groupsOf(halves[1]) : [];
  if (![...head, ...back].every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
  const missing = 8 - head.length - back.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  return [
    ...head.map((group) => parseInt(group, 16)),
    ...Array<number>(halves.length === 2 ? missing : 0).fill(0),
    ...back.map((group) => parseInt(group, 16)),
    ...tail,
  ];
}
