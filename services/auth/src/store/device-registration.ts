/**
 * The anonymous side of devices: registering an Ed25519 key (POST /api/v1/agentic/asc/register,
 * no token) as a pending device nobody owns yet, and purging devices nobody claimed.
 *
 * What it enforces:
 * - one device per key: a key registered once is refused (409) for as long as its device exists,
 *   so a denied or revoked key stays refused; a device unclaimed after 24 hours is purged (on the
 *   next registration), which frees its key;
 * - registrations per client address (SHA-256 of the address the gateway saw) at most
 *   `perClientPerHour`, counted in PostgreSQL under an advisory lock, so every replica agrees and
 *   concurrent registrations cannot all slip under it: over it, 429 RATE_LIMITED with Retry-After.
 */
import { AppError } from '@pag/contracts';
import { newId } from '../agents/agent-rules.ts';
import type { DevicePublicKey } from '../devices/device-keys.ts';
import { clientHash, keyFingerprint, newUserCode, rawPublicKey } from '../devices/device-keys.ts';
import type { Device, PrismaClient } from '../generated/prisma/client.ts';

export interface RegistrationLimits {
  perClientPerHour: number;
  /** How long a device may wait to be claimed before it is purged. */
  unclaimedLifetimeSeconds: number;
}

export const DEFAULT_REGISTRATION_LIMITS: RegistrationLimits = {
  perClientPerHour: 10,
  unclaimedLifetimeSeconds: 24 * 3600,
};

export interface NewDevice {
  publicKey: DevicePublicKey;
  name: string;
  /** The caller's address as the gateway saw it (only its hash is stored). */
  clientAddress: string;
}

export interface DeviceRegistrationsOptions {
  prisma: PrismaClient;
  publicUrl: string;
  limits?: Partial<RegistrationLimits>;
  now?: () => Date;
}

/** pg_advisory_xact_lock(class, key) class of the registration limit (handshakes use 71xx). */
const LOCK_CLASS_CLIENT = 7201;
const HOUR_MS = 3600_000;

/** `${publicUrl}/dashboard/devices/claim?user_code=XXXX-XXXX` (nothing in a code to escape). */
export function deviceClaimUrl(publicUrl: string, userCode: string): string {
  return `${publicUrl}/dashboard/devices/claim?user_code=${userCode}`;
}

/** The oldest moment a device may have been registered and still be claimed. */
export function claimableSince(now: Date, limits: RegistrationLimits): Date {
  return new Date(now.getTime() - limits.unclaimedLifetimeSeconds * 1000);
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'P2002';
}

const keyTaken = () =>
  new AppError('CONFLICT', 'This public key is already registered.', {
    hint: 'A key registers once; a denied or revoked key stays refused. Make a new key pair to register again.',
  });

export class DeviceRegistrations {
  readonly #db: PrismaClient;
  readonly #publicUrl: string;
  readonly #limits: RegistrationLimits;
  readonly #now: () => Date;

  constructor(options: DeviceRegistrationsOptions) {
    this.#db = options.prisma;
    this.#publicUrl = options.publicUrl;
    this.#limits = { ...DEFAULT_REGISTRATION_LIMITS, ...options.limits };
    this.#now = options.now ?? (() => new Date());
  }

  /** Records a pending device within the registration limit; its key must be new. */
  async register(input: NewDevice): Promise<{ device: Device; claimUrl: string }> {
    const publicKey = rawPublicKey(input.publicKey);
    const name = input.name.trim();
    if (name === '') throw new AppError('INVALID_REQUEST', 'deviceName must not be blank.');
    const now = this.#now();
    await this.purgeUnclaimed();
    const hash = clientHash(input.clientAddress);
    const limit = this.#limits.perClientPerHour;
    try {
      const device = await this.#db.$transaction(async (tx) => {
        // Held until commit: a concurrent registration from the same address counts this one.
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_CLASS_CLIENT}::int, hashtext(${hash}))`;
        const recent = await tx.device.findMany({
          where: { clientHash: hash, createdAt: { gt: new Date(now.getTime() - HOUR_MS) } },
          orderBy: { createdAt: 'desc' },
          take: limit,
          select: { createdAt: true },
        });
        const oldest = recent.length >= limit ? recent[limit - 1] : undefined;
        if (oldest !== undefined) {
          const wait = Math.max(1, Math.ceil((oldest.createdAt.getTime() + HOUR_MS - now.getTime()) / 1000));
          throw new AppError(
            'RATE_LIMITED',
            `Too many device registrations from your address: at most ${limit} per hour. Retry in ${wait} s.`,
            { headers: { 'Retry-After': String(wait) } },
          );
        }
        if ((await tx.device.findUnique({ where: { publicKey }, select: { id: true } })) !== null)
          throw keyTaken();
        let userCode = newUserCode();
        while ((await tx.device.findUnique({ where: { userCode }, select: { id: true } })) !== null)
          userCode = newUserCode();
        return tx.device.create({
          data: {
            id: newId('dev'),
            name,
            publicKey,
            fingerprint: keyFingerprint(publicKey),
            userCode,
            clientHash: hash,
            createdAt: now,
          },
        });
      });
      return { device, claimUrl: deviceClaimUrl(this.#publicUrl, device.userCode) };
    } catch (error) {
      // Two registrations of one key from two addresses: the unique index decides.
      if (isUniqueViolation(error)) throw keyTaken();
      throw error;
    }
  }

  /** Deletes devices nobody claimed in time (their keys may register again). */
  async purgeUnclaimed(): Promise<number> {
    const cutoff = claimableSince(this.#now(), this.#limits);
    const purged = await this.#db.device.deleteMany({
      where: { accountId: null, status: 'pending', createdAt: { lt: cutoff } },
    });
    return purged.count;
  }
}
