/**
 * The auth service's purge task: expired oidc-provider records (kit's startPurgeJob runs it, with
 * the login counters' own task, every few minutes). Expired legacy tokens go with them, so the
 * legacy cut-over is read again afterwards (legacy-cut-over.ts).
 */
import type { PurgeTask } from '@pag/kit';
import type { PrismaClient } from '../generated/prisma/client.ts';

export function purgeExpiredPayloads(
  prisma: PrismaClient,
  legacyTokens?: { refresh(): Promise<void> },
): PurgeTask {
  return {
    name: 'oidc_payloads',
    run: async () => {
      const purged = await prisma.$executeRaw`DELETE FROM "auth"."oidc_payloads" WHERE expires_at <= now()`;
      await legacyTokens?.refresh();
      return purged;
    },
  };
}
