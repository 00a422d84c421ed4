/**
 * Whether an IP address is one a server may fetch from on a stranger's say-so: a public unicast
 * address. Refused: loopback, private (RFC 1918, unique local), link-local (which holds the cloud
 * metadata address 169.254.169.254), carrier-grade NAT, "this network", documentation, benchmark,
 * multicast, reserved and broadcast ranges, and IPv6 forms that embed or tunnel IPv4 (NAT64, 6to4,
 * Teredo), so that a private IPv4 address cannot hide inside one. An IPv4-mapped IPv6 address
 * (::ffff:a.b.c.d) is judged as its IPv4 address: node's BlockList checks it against the IPv4
 * rules (which is also why no ::ffff:0:0/96 rule: it would match every IPv4 address).
 *
 * Loopback is its own class so that tests may serve documents on 127.0.0.1 / ::1 when the caller
 * allows it explicitly (never a default).
 */
import { BlockList, isIP } from 'node:net';

export type AddressClass = 'public' | 'loopback' | 'refused';

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

const refused = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  refused.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  refused.addSubnet(network, prefix, 'ipv6');

/** The class of an IP literal; anything that is not an IP address is refused. */
export function classifyAddress(address: string): AddressClass {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const version = isIP(bare);
  if (version === 0) return 'refused';
  const family = version === 4 ? 'ipv4' : 'ipv6';
  if (loopback.check(bare, family)) return 'loopback';
  if (refused.check(bare, family)) return 'refused';
  return 'public';
}

/** Whether a connection to `address` is allowed: public, or loopback when `allowLoopback`. */
export function isAllowedAddress(address: string, allowLoopback: boolean): boolean {
  const kind = classifyAddress(address);
  return kind === 'public' || (kind === 'loopback' && allowLoopback);
}
