import { describe, expect, test } from '@jest/globals';
import { addressBucket } from './address-bucket.ts';

describe('addressBucket', () => {
  test('an IPv4 address is its own bucket', () => {
    expect(addressBucket('203.0.113.7')).toBe('203.0.113.7');
    expect(addressBucket('203.0.113.8')).toBe('203.0.113.8');
  });

  test('an IPv4-mapped IPv6 address is the IPv4 address', () => {
    expect(addressBucket('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(addressBucket('::FFFF:203.0.113.7')).toBe('203.0.113.7');
  });

  test('IPv6 addresses of one /64 share a bucket, whatever their spelling', () => {
    const bucket = addressBucket('2001:db8:1:2::1');
    expect(bucket).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:0db8:0001:0002:ffff:eeee:dddd:cccc')).toBe(bucket);
    expect(addressBucket('2001:db8:1:2:0:0:0:9')).toBe(bucket);
    expect(addressBucket('2001:db8:1:3::1')).not.toBe(bucket);
  });

  test('short forms, zone indexes and embedded IPv4 are read correctly', () => {
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
    expect(addressBucket('2001:db8::')).toBe('2001:db8:0:0::/64');
    expect(addressBucket('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressBucket('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(addressBucket('1:2:3:4:5:6:1.2.3.4')).toBe('1:2:3:4::/64');
  });

  test('something that is no address stays as it is', () => {
    expect(addressBucket('unknown')).toBe('unknown');
  });
});
