/**
 * The signing keys of the running service, kept in auth.signing_keys, encrypted.
 *
 * What it enforces:
 * - the first start makes a key; replicas starting together make exactly one (an advisory lock
 *   serialises them, and rotation, across processes);
 * - the newest unretired key signs (it comes first in the key set, and oidc-provider takes the
 *   first key that fits); rotation adds a new key and retires the others, which stay in the key
 *   set for `retiredKeyGraceSeconds` so ID tokens they signed still verify;
 * - a running provider loads its keys at start: a rotation takes effect at the next start of each
 *   replica (the CLI says so), and until then the old key still signs and verifies.
 */
import type { PrismaClient } from '../generated/prisma/client.ts';
import { decryptJwk, encryptJwk } from '../keys/key-encryption.ts';
import type { SigningJwk } from '../keys/signing-key.ts';
import { generateSigningJwk, SIGNING_ALG } from '../keys/signing-key.ts';

/** Long past the life of any ID token (one hour): a retired key verifies for this long. */
export const RETIRED_KEY_GRACE_SECONDS = 7 * 24 * 3600;

/** pg_advisory_xact_lock key (hashtext would do, a constant is plainer): "pag-auth-signing-keys". */
const LOCK_KEY = 0x7061_6773;

export interface SigningKeyOptions {
  prisma: PrismaClient;
  keyEncryptionKey: Buffer;
  retiredKeyGraceSeconds?: number;
}

export interface RotationResult {
  /** The kid of the key that signs from the next start on. */
  kid: string;
  /** The kids retired by this rotation (still published for the grace period). */
  retired: string[];
}

type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

async function insertKey(tx: Tx, key: Buffer): Promise<SigningJwk> {
  const jwk = generateSigningJwk();
  await tx.signingKey.create({
    data: { kid: jwk.kid, alg: SIGNING_ALG, encryptedJwk: encryptJwk(jwk, key, jwk.kid) },
  });
  return jwk;
}

/** The key set for oidc-provider's `jwks`, newest first; makes the first key when there is none. */
export async function loadSigningKeys(options: SigningKeyOptions): Promise<{ keys: SigningJwk[] }> {
  const grace = options.retiredKeyGraceSeconds ?? RETIRED_KEY_GRACE_SECONDS;
  const rows = await options.prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_KEY}::bigint)`;
    if ((await tx.signingKey.count({ where: { retiredAt: null } })) === 0) {
      await insertKey(tx, options.keyEncryptionKey);
    }
    return tx.signingKey.findMany({
      where: { OR: [{ retiredAt: null }, { retiredAt: { gt: new Date(Date.now() - grace * 1000) } }] },
      orderBy: { createdAt: 'desc' },
    });
  });
  const keys = rows.map(
    (row): SigningJwk => ({
      ...decryptJwk(row.encryptedJwk, options.keyEncryptionKey, row.kid),
      kid: row.kid,
      alg: SIGNING_ALG,
      use: 'sig' as const,
    }),
  );
  return { keys };
}

/** Adds a new signing key and retires the current ones (they keep verifying for the grace period). */
export async function rotateSigningKeys(options: SigningKeyOptions): Promise<RotationResult> {
  return options.prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_KEY}::bigint)`;
    const current = await tx.signingKey.findMany({ where: { retiredAt: null }, select: { kid: true } });
    await tx.signingKey.updateMany({ where: { retiredAt: null }, data: { retiredAt: new Date() } });
    const jwk = await insertKey(tx, options.keyEncryptionKey);
    return { kid: jwk.kid, retired: current.map((row) => row.kid) };
  });
}
