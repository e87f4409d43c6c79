import { describe, expect, it } from 'vitest';
import { isIpAddress, nonPublicAddress } from '../../../src/contract/webhooks/address';

describe('nonPublicAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback (::1)'],
    ['[::1]', 'loopback (::1)'],
    ['0:0:0:0:0:0:0:1', 'loopback (::1)'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local (fe80::/10)'],
    ['febf::1', 'link-local (fe80::/10)'],
    ['fe80::1%eth0', 'link-local'],
    ['10.0.0.1', 'private (10.0.0.0/8)'],
    ['10.255.255.255', 'private (10.0.0.0/8)'],
    ['192.168.1.20', 'private (192.168.0.0/16)'],
    ['172.16.0.1', 'private (172.16.0.0/12)'],
    ['172.31.255.255', 'private (172.16.0.0/12)'],
    ['fc00::1', 'unique local'],
    ['fd12:3456:789a::1', 'unique local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified (::)'],
    ['100.64.0.1', 'shared'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['ff02::1', 'multicast'],
  ])('%s is not public (%s)', (ip, kind) => {
    expect(nonPublicAddress(ip)).toContain(kind);
  });

  it.each([
    // IPv4-mapped, as written and as the URL parser writes it ([::ffff:a9fe:a9fe]).
    [
      '::ffff:169.254.169.254',
      'link-local (169.254.0.0/16, where cloud metadata answers), as IPv4-mapped 169.254.169.254',
    ],
    ['[::ffff:a9fe:a9fe]', 'link-local (169.254.0.0/16, where cloud metadata answers), as IPv4-mapped 169.254.169.254'],
    ['::ffff:127.0.0.1', 'loopback (127.0.0.0/8), as IPv4-mapped 127.0.0.1'],
    ['::FFFF:7f00:1', 'loopback (127.0.0.0/8), as IPv4-mapped 127.0.0.1'],
    ['::ffff:10.1.2.3', 'private (10.0.0.0/8), as IPv4-mapped 10.1.2.3'],
    ['::127.0.0.1', 'loopback (127.0.0.0/8), as IPv4-compatible 127.0.0.1'],
    ['64:ff9b::a9fe:a9fe', 'link-local (169.254.0.0/16, where cloud metadata answers), as NAT64 169.254.169.254'],
    ['2002:7f00:1::', 'loopback (127.0.0.0/8), as 6to4 127.0.0.1'],
  ])('%s carries a non-public IPv4 address: %s', (ip, kind) => {
    expect(nonPublicAddress(ip)).toBe(kind);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.15.255.255',
    '172.32.0.1',
    '192.169.0.1',
    '169.253.1.1',
    '11.0.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '[2001:4860:4860::8888]',
    '64:ff9b::808:808',
  ])('%s is public', (ip) => {
    expect(nonPublicAddress(ip)).toBeUndefined();
  });

  it('what is no IP address is never taken for a public one', () => {
    for (const text of ['example.com', '1.2.3', '256.1.1.1', '1::2::3', '12345::', ''])
      expect(nonPublicAddress(text), text).toBe('not an IP address');
  });
});

describe('isIpAddress', () => {
  it('IPv4 and IPv6 (bracketed or not) are addresses; host names are not', () => {
    expect(['127.0.0.1', '::1', '[::ffff:a9fe:a9fe]', 'fe80::1%eth0'].map(isIpAddress)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['localhost', 'hooks.example.com', '127.0.0.1.nip.io', '999.1.1.1'].map(isIpAddress)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});
