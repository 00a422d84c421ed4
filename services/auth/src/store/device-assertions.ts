/**
 * What the device grant reads and writes (devices/device-assertion.ts checks the assertion): the
 * device a token request names, and the ledger of assertion ids (jti) already used, each kept
 * until its assertion could no longer pass anyway, then purged.
 */
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { DeviceRecord } from './device-record.ts';
import { WITH_AGENT } from './device-record.ts';

export class DeviceAssertions {
  readonly #db: PrismaClient;

  constructor(prisma: PrismaClient) {
    this.#db = prisma;
  }

  /** The device with this id, whoever's it is; null when there is none. */
  findDevice(id: string): Promise<DeviceRecord | null> {
    return this.#db.device.findUnique({ where: { id }, include: WITH_AGENT });
  }

  /**
   * Records a jti as used until `keepUntil`; false when the device used it before (a replay).
   * Entries past their time are purged first.
   */
  async use(deviceId: string, jti: string, keepUntil: Date, now: Date): Promise<boolean> {
    await this.#db.deviceAssertion.deleteMany({ where: { expiresAt: { lt: now } } });
    try {
      await this.#db.deviceAssertion.create({ data: { deviceId, jti, expiresAt: keepUntil } });
      return true;
    } catch (error) {
      if ((error as { code?: unknown }).code === 'P2002') return false;
      throw error;
    }
  }
}
