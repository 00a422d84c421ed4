/**
 * Password hashing with argon2id, the memory-hard function OWASP recommends first.
 *
 * Parameters (OWASP Password Storage Cheat Sheet, argon2id minimum): m = 19 MiB (19,456 KiB),
 * t = 2 passes, p = 1 lane, 32-byte output, 16-byte random salt (the library's default). One hash
 * costs about 20-40 ms of one core and 19 MiB of memory, so a guesser with a stolen table pays
 * the same per guess. The parameters are stored in each PHC string ($argon2id$v=19$m=…,t=…,p=…),
 * so raising them later needs no migration: `needsRehash` tells the store to rehash on the next
 * successful sign-in.
 */
import { randomUUID } from 'node:crypto';
import type { Algorithm, Options } from '@node-rs/argon2';
import { hash, parseOptions, verify } from '@node-rs/argon2';

// `Algorithm` is an ambient const enum, which erasable TypeScript cannot read at run time;
// 2 is its Argon2id member (see @node-rs/argon2's index.d.ts).
const ARGON2ID = 2 as Algorithm;

export const PASSWORD_HASH_OPTIONS = {
  algorithm: ARGON2ID,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
  outputLen: 32,
} as const satisfies Options;

export function hashPassword(password: string): Promise<string> {
  return hash(password, PASSWORD_HASH_OPTIONS);
}

/** False for a wrong password and for a malformed stored hash (never throws on bad input). */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** Whether a stored hash was made with weaker (or other) parameters than the current ones. */
export function needsRehash(passwordHash: string): boolean {
  try {
    const current = parseOptions(passwordHash);
    return (
      current.algorithm !== ARGON2ID ||
      current.memoryCost < PASSWORD_HASH_OPTIONS.memoryCost ||
      current.timeCost < PASSWORD_HASH_OPTIONS.timeCost ||
      current.outputLen < PASSWORD_HASH_OPTIONS.outputLen
    );
  } catch {
    return true;
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * Verifies against a hash of a random password with the same parameters, so a sign-in for an
 * unknown email costs what one for a known email costs and timing does not reveal which exists.
 */
export async function burnVerification(password: string): Promise<void> {
  dummyHash ??= hashPassword(randomUUID());
  await verifyPassword(await dummyHash, password);
}
