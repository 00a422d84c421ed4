/**
 * The auth service's purge task: expired oidc-provider records, access tokens and the tombstones of
 * revoked ones EXPIRED_TOKENS_KEPT_DAYS after their expiry (kit's startPurgeJob runs it, with
 * the login counters' own task, every few minutes). Expired legacy tokens go with them, so the
 * legacy cut-over is read again afterwards (legacy-cut-over.ts).
 */
import type { PurgeTask } from '@pag/kit';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { EXPIRED_TOKENS_KEPT_DAYS, REVOKED_ACCESS_TOKEN } from './inactive-tokens.ts';

export function purgeExpiredPayloads(
  prisma: PrismaClient,
  legacyTokens?: { refresh(): Promise<void> },
): PurgeTask {
  return {
    name: 'oidc_payloads',
    run: async () => {
      // Access tokens and tombstones of revoked ones stay a while past expiry, so introspection can
      // still say "expired" or "revoked" rather than "unknown" (inactive-tokens.ts).
      const purged = await prisma.$executeRaw`
        DELETE FROM "auth"."oidc_payloads"
         WHERE expires_at <= now()
           AND (model NOT IN (${REVOKED_ACCESS_TOKEN}, 'AccessToken', 'ClientCredentials')
                OR expires_at <= now() - make_interval(days => ${EXPIRED_TOKENS_KEPT_DAYS}::int))`;
      await legacyTokens?.refresh();
      return purged;
    },
  };
}
