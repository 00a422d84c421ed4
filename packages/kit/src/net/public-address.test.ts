import { describe, expect, test } from '@jest/globals';
import { classifyAddress, isAllowedAddress } from './public-address.ts';

describe('classifyAddress', () => {
  test.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(classifyAddress(address)).toBe('public');
  });

  test.each(['127.0.0.1', '127.8.9.10', '::1', '[::1]'])('%s is loopback', (address) => {
    expect(classifyAddress(address)).toBe('loopback');
    expect(isAllowedAddress(address, false)).toBe(false);
    expect(isAllowedAddress(address, true)).toBe(true);
  });

  test.each([
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'cloud metadata (link-local)'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'this network'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['fd00:ec2::254', 'unique local (AWS metadata over IPv6)'],
    ['fe80::1', 'link-local'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['64:ff9b::a00:1', 'NAT64'],
    ['2002:a00:1::', '6to4'],
    ['::', 'unspecified'],
    ['example.com', 'not an address'],
  ])('%s is refused (%s)', (address) => {
    expect(classifyAddress(address)).toBe('refused');
    expect(isAllowedAddress(address, true)).toBe(false);
  });
});
