import { createHash } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { checksumMatches, migrationChecksum } from './migration-checksum.ts';

describe('migrationChecksum', () => {
  test('is the zero-padded SHA-256 hex of the script, as prisma-engines renders it', () => {
    // The value prisma-engines' own test (checksum.rs, format_checksum_does_not_strip_zeros) expects.
    expect(migrationChecksum('hello')).toBe(
      '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
    );
  });

  test('hashes the script as read: CRLF and a BOM are not normalised away', () => {
    expect(migrationChecksum('a\r\nb')).not.toBe(migrationChecksum('a\nb'));
    expect(migrationChecksum('\ufeffSELECT 1;')).toBe(
      createHash('sha256')
        .update(Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('SELECT 1;')]))
        .digest('hex'),
    );
  });
});

describe('checksumMatches', () => {
  test('accepts the script with LF or CRLF line endings either way round (prisma-engines test cases)', () => {
    const groups = [
      ['ab\ncd\nef\ngh\rab', 'ab\r\ncd\r\nef\r\ngh\rab'],
      ['ab\ncd\nef\ngh\rab\n', 'ab\r\ncd\r\nef\r\ngh\rab\r\n'],
    ];
    for (const group of groups) {
      for (const script of group) {
        for (const other of group) expect(checksumMatches(script, migrationChecksum(other))).toBe(true);
      }
    }
  });

  test('refuses a changed script', () => {
    expect(checksumMatches('abc', migrationChecksum('abcd'))).toBe(false);
    expect(checksumMatches('abc\n', migrationChecksum('abc'))).toBe(false);
  });

  test('reads checksums of old engines, written without zero padding', () => {
    const digest = createHash('sha256').update('hello').digest();
    const unpadded = Array.from(digest, (byte) => byte.toString(16)).join('');
    expect(unpadded.length).toBeLessThan(64);
    expect(checksumMatches('hello', unpadded)).toBe(true);
    expect(checksumMatches('hello!', unpadded)).toBe(false);
  });
});
