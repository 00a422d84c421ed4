/**
 * What identifies a device, as pure functions: its Ed25519 public key in one stored form (the raw
 * 32 bytes, base64url), the fingerprint the owner compares, the user code the owner claims it
 * with, and the SHA-256 the registration limit keys the caller's address by.
 *
 * User codes follow RFC 8628 §6.1: eight characters from an alphabet without vowels (no words)
 * and without 0/O, 1/I/L, 5/S (no look-alikes), shown as XXXX-XXXX; typing them in lower case,
 * with spaces or without the dash still matches.
 */
import type { KeyObject } from 'node:crypto';
import { createHash, createPublicKey, randomInt } from 'node:crypto';
import type { DeviceRegisterRequest } from '@pag/contracts';
import { AppError } from '@pag/contracts';

/** The Ed25519 key as the registration body may give it: raw base64url or a public JWK. */
export type DevicePublicKey = DeviceRegisterRequest['publicKey'];

const RAW_KEY = /^[A-Za-z0-9_-]{43}$/;

/** The raw key, base64url, after checking that it is a usable Ed25519 public key. */
export function rawPublicKey(input: DevicePublicKey): string {
  const raw = typeof input === 'string' ? input : input.x;
  if (!RAW_KEY.test(raw) || Buffer.from(raw, 'base64url').length !== 32)
    throw new AppError('INVALID_REQUEST', 'publicKey must be a 32-byte Ed25519 public key, base64url.');
  try {
    publicKeyObject(raw);
  } catch (cause) {
    throw new AppError('INVALID_REQUEST', 'publicKey is not a usable Ed25519 public key.', { cause });
  }
  return raw;
}

/** The key for signature checks. */
export function publicKeyObject(raw: string): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw }, format: 'jwk' });
}

/** SHA-256 of the raw 32 bytes, base64url (43 characters): what owner and device compare. */
export function keyFingerprint(raw: string): string {
  return createHash('sha256').update(Buffer.from(raw, 'base64url')).digest('base64url');
}

/** The fingerprint in groups of four, easier to read aloud and compare. */
export function groupedFingerprint(fingerprint: string): string {
  return fingerprint.match(/.{1,4}/g)?.join(' ') ?? fingerprint;
}

export const USER_CODE_ALPHABET = 'BCDFGHJKMNPQRTVWXZ2346789';

/** A fresh XXXX-XXXX code: 25^8 ≈ 1.5e11 values. */
export function newUserCode(): string {
  const pick = () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  const part = () => Array.from({ length: 4 }, pick).join('');
  return `${part()}-${part()}`;
}

/** The stored form of what an owner typed; null when it cannot be a user code. */
export function normalizeUserCode(typed: string): string | null {
  const compact = typed.toUpperCase().replace(/[\s-]/g, '');
  if (compact.length !== 8 || [...compact].some((character) => !USER_CODE_ALPHABET.includes(character)))
    return null;
  return `${compact.slice(0, 4)}-${compact.slice(4)}`;
}

/** Keys the registration limit: the caller's address never rests in the clear. */
export function clientHash(address: string): string {
  return createHash('sha256').update(address, 'utf8').digest('hex');
}
