/**
 * Which budget of authentication failures a client address draws on (docs/adr/0026): an IPv4
 * address is its own bucket; an IPv6 address shares one with its /64 network, because one
 * subscriber, host or container usually holds a whole /64 and could otherwise take a fresh
 * address, and a fresh budget, for every request. An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`,
 * what a dual-stack socket reports for an IPv4 peer) is the IPv4 address. Anything else (no
 * address known) is its own bucket, unchanged.
 */
import { isIPv4, isIPv6 } from 'node:net';

export function addressBucket(address: string): string {
  if (isIPv4(address)) return address;
  const bare = address.replace(/%.*$/, ''); // a zone index (fe80::1%eth0) names an interface, not a host
  if (!isIPv6(bare)) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)?.[1];
  if (mapped !== undefined) return mapped;
  const groups = expandIpv6(bare);
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, lower-case hex without leading zeros. */
function expandIpv6(address: string): string[] {
  // A trailing dotted quad (::1.2.3.4, 64:ff9b::1.2.3.4) holds the last two groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  let text = address;
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${address.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => Number.parseInt(group, 16).toString(16));
}
