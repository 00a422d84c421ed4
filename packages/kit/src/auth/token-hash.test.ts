/**
 * tokenSha256 names a token as caches and TokenRevokedEvent do: the hex SHA-256 of its UTF-8
 * bytes. The auth service computes the same name on its side, so the digest must not change.
 */
import { createHash } from 'node:crypto';
import { expect, test } from '@jest/globals';
import { tokenSha256 } from './token-hash.ts';

test('the hex SHA-256 of the token’s UTF-8 bytes (FIPS 180-2 vector, and a non-ASCII token)', () => {
  expect(tokenSha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  const token = `pag_at_${'é'.repeat(3)}${'x'.repeat(55)}`;
  expect(tokenSha256(token)).toBe(createHash('sha256').update(Buffer.from(token, 'utf8')).digest('hex'));
});
