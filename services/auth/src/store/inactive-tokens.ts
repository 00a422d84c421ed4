/**
 * Why an access token is not active, for our resource servers' introspection answers
 * (provider/introspection.ts, docs/adr/0062): `revoked` when a tombstone of it is kept
 * (oidc-adapter.ts writes one for every access token it deletes), `expired` when its row is still
 * there past its expiry (purge-job.ts keeps access-token rows for EXPIRED_TOKENS_KEPT_DAYS), else
 * `unknown`. Telling the caller leaks nothing: it holds the token. A token that is not one of ours
 * with a verified tag, or is a refresh token, is `unknown` without a query (a guessed token costs
 * nothing and learns nothing).
 */
import type { InactiveReason } from '@pag/contracts';
import type { TokenTags } from '@pag/kit';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { RecordKey } from './record-key.ts';

export type { InactiveReason } from '@pag/contracts';

/** The model name of a revoked access token's tombstone in auth.oidc_payloads. */
export const REVOKED_ACCESS_TOKEN = 'RevokedAccessToken';

/** How long after their expiry access-token rows and tombstones are kept, to name the reason. */
export const EXPIRED_TOKENS_KEPT_DAYS = 7;

export function inactiveTokenReason(options: {
  prisma: PrismaClient;
  key: RecordKey;
  tokenTags: TokenTags;
}): (token: string) => Promise<InactiveReason> {
  const { prisma, key, tokenTags } = options;
  return async (token) => {
    const read = tokenTags.read(token);
    if (read.shape !== 'tagged' || read.kind === 'refresh') return 'unknown';
    const rows = await prisma.$queryRaw<{ model: string; expired: boolean }[]>`
      SELECT model, (expires_at IS NOT NULL AND expires_at <= now()) AS expired
        FROM "auth"."oidc_payloads"
       WHERE model IN (${REVOKED_ACCESS_TOKEN}, 'AccessToken', 'ClientCredentials') AND id = ${key(token)}`;
    if (rows.some((row) => row.model === REVOKED_ACCESS_TOKEN)) return 'revoked';
    if (rows.some((row) => row.expired)) return 'expired';
    return 'unknown';
  };
}
