/**
 * The code an owner claims an unassigned handshake with. It travels only inside the claim URL the
 * agent shows its human; the database keeps its SHA-256 (an unsalted hash is enough: the code has
 * 256 random bits, so nobody can guess it or look it up, and it must be found by an index).
 */
import { createHash, randomBytes } from 'node:crypto';

/** 32 random bytes, base64url: 43 characters. */
export function newClaimCode(): string {
  return randomBytes(32).toString('base64url');
}

const CODE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The stored form of a code typed or pasted by an owner (the code, or the whole claim link); null
 * for text that cannot hold a code (nothing to look up).
 */
export function claimCodeHash(input: string): string | null {
  const trimmed = input.trim();
  const code = CODE.test(trimmed) ? trimmed : (URL.parse(trimmed)?.searchParams.get('code') ?? '');
  return CODE.test(code) ? sha256Hex(code) : null;
}

export function newClaimCodeWithHash(): { code: string; hash: string } {
  const code = newClaimCode();
  return { code, hash: sha256Hex(code) };
}

/** Keys of the creation limits: the caller's address never rests in the clear. */
export function clientAddressHash(address: string): string {
  return sha256Hex(`client:${address}`);
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** `${publicUrl}/dashboard/handshakes/claim?code=…` (a code is base64url: nothing to escape). */
export function claimUrl(publicUrl: string, code: string): string {
  return `${publicUrl}/dashboard/handshakes/claim?code=${code}`;
}
