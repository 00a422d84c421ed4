/**
 * The owner's identity profile, one row per account. `insertIfAbsent` is a single
 * INSERT … ON CONFLICT DO NOTHING, so replicas seeding the same fresh account at once neither
 * fail nor write twice, and a profile the owner already edited is never overwritten.
 */
import type { Identity } from '@pag/contracts';
import type { PrismaClient } from '../generated/prisma/client.ts';

const IDENTITY_FIELDS = { name: true, email: true, timezone: true, locale: true, summary: true } as const;

export class IdentityStore {
  readonly #prisma: PrismaClient;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
  }

  async find(accountId: string): Promise<Identity | null> {
    return this.#prisma.identityProfile.findUnique({ where: { accountId }, select: IDENTITY_FIELDS });
  }

  /** Stores `identity` unless the account has a profile; answers the profile that is stored. */
  async insertIfAbsent(accountId: string, identity: Identity): Promise<Identity> {
    await this.#prisma.identityProfile.createMany({
      data: [{ accountId, ...identity }],
      skipDuplicates: true,
    });
    const stored = await this.find(accountId);
    // Only a deletion between the two statements gets here; nothing in the brain deletes profiles.
    if (stored === null) throw new Error(`identity profile of ${accountId} vanished after its insert`);
    return stored;
  }

  /** Changes only the fields given (undefined keeps one; null clears it); null without a profile. */
  async update(accountId: string, fields: Partial<Omit<Identity, 'email'>>): Promise<Identity | null> {
    const changed = await this.#prisma.identityProfile.updateMany({ where: { accountId }, data: fields });
    return changed.count === 0 ? null : this.find(accountId);
  }
}
