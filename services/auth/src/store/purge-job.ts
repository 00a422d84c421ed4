/**
 * The auth service's purge task: expired oidc-provider records (kit's startPurgeJob runs it, with
 * the login counters' own task, every few minutes).
 */
import type { PurgeTask } from '@pag/kit';
import type { PrismaClient } from '../generated/prisma/client.ts';

export function purgeExpiredPayloads(prisma: PrismaClient): PurgeTask {
  return {
    name: 'oidc_payloads',
    run: () => prisma.$executeRaw`DELETE FROM "auth"."oidc_payloads" WHERE expires_at <= now()`,
  };
}
