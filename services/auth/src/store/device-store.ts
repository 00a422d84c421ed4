/**
 * The owner's side of devices: claiming one by its user code, then approving, denying or, once
 * approved, revoking it (registration is device-registration.ts). Approval makes an agent of kind
 * `device` whose OAuth client id is the device id; the device then obtains access tokens with
 * signed assertions (device-grant.ts).
 *
 * What it enforces:
 * - tenancy: a device is nobody's until claimed; every read and decision names the owner account,
 *   and another owner's, an unclaimed or an unknown device is "not found", as is a user code
 *   already claimed by someone else or older than the claim window;
 * - decisions: approve and deny take a pending device once (the pending → decided update locks
 *   the row); revoke ends an approved device for good (its agent revoked first: tokens dead,
 *   caches evicted, client gone); nothing restores it;
 * - every decision (claim, approve, deny, revoke) writes its audit event in its own transaction
 *   (store/audit-outbox.ts), naming who decided (DecidedBy).
 */
import type { DeviceEvent } from '@pag/contracts';
import { AppError } from '@pag/contracts';
import { JWT_BEARER } from '../devices/device-assertion.ts';
import { normalizeUserCode } from '../devices/device-keys.ts';
import { deviceStatus } from '../devices/device-status.ts';
import type { DecidedBy } from '../events/audit-decisions.ts';
import { grantDetail } from '../events/audit-decisions.ts';
import type { AuthEvents } from '../events/auth-events.ts';
import type { Device, PrismaClient } from '../generated/prisma/client.ts';
import type { Agent, AgentStore } from './agent-store.ts';
import { recordDecision } from './audit-outbox.ts';
import type { DeviceRecord } from './device-record.ts';
import { WITH_AGENT } from './device-record.ts';
import type { RegistrationLimits } from './device-registration.ts';
import { claimableSince, DEFAULT_REGISTRATION_LIMITS } from './device-registration.ts';

export type { Device, DeviceRecord } from './device-record.ts';

export interface Approval {
  scopes: readonly string[];
  dailyLimit?: number | null | undefined;
  monthlyLimit?: number | null | undefined;
}

export interface DeviceStoreOptions {
  prisma: PrismaClient;
  agents: AgentStore;
  /** Only `unclaimedLifetimeSeconds` matters here: the claim window. */
  limits?: Partial<RegistrationLimits>;
  now?: () => Date;
  /** Told of approvals and revocations (events.auth.device.approved|revoked). */
  events: Pick<AuthEvents, 'deviceApproved' | 'deviceRevoked'>;
}

/** `dev_` and 22 base64url characters (16 random bytes), as newId makes them. */
const DEVICE_ID = /^dev_[A-Za-z0-9_-]{22}$/;

export function isDeviceId(value: string): boolean {
  return DEVICE_ID.test(value);
}

function notFound(id: string): AppError {
  return new AppError('NOT_FOUND', `No device ${isDeviceId(id) ? id : 'with this id'} among yours.`, {
    hint: 'Your devices are listed on /dashboard/devices; a new one must be claimed with its user code first.',
  });
}

export class DeviceStore {
  readonly #db: PrismaClient;
  readonly #agents: AgentStore;
  readonly #limits: RegistrationLimits;
  readonly #now: () => Date;
  readonly #events: DeviceStoreOptions['events'];

  constructor(options: DeviceStoreOptions) {
    this.#db = options.prisma;
    this.#agents = options.agents;
    this.#limits = { ...DEFAULT_REGISTRATION_LIMITS, ...options.limits };
    this.#now = options.now ?? (() => new Date());
    this.#events = options.events;
  }

  /**
   * Makes a pending device the owner's by its user code. A code of a device already this owner's
   * is accepted (the owner opens the link twice); an unknown, expired, mistyped or other owner's
   * code fails alike.
   */
  async claim(accountId: string, typed: string, by: DecidedBy): Promise<DeviceRecord> {
    const userCode = normalizeUserCode(typed);
    const cutoff = claimableSince(this.#now(), this.#limits);
    if (userCode !== null)
      await this.#db.$transaction(async (tx) => {
        const where = { userCode, accountId: null, status: 'pending', createdAt: { gt: cutoff } } as const;
        const claimable = await tx.device.findFirst({ where, select: { id: true, name: true } });
        const claimed = await tx.device.updateMany({ where, data: { accountId } });
        if (claimed.count === 1 && claimable !== null)
          await recordDecision(tx, {
            by,
            accountId,
            action: 'device.claim',
            target: claimable.id,
            detail: { name: claimable.name },
          });
      });
    const device =
      userCode === null
        ? null
        : await this.#db.device.findFirst({ where: { userCode, accountId }, include: WITH_AGENT });
    if (device === null)
      throw new AppError('NOT_FOUND', 'No device waits for this code.', {
        hint: 'Type the code the device shows (XXXX-XXXX); a device must be claimed within 24 hours of registering.',
      });
    return device;
  }

  /** The owner's devices, newest first. */
  list(accountId: string): Promise<DeviceRecord[]> {
    return this.#db.device.findMany({
      where: { accountId },
      orderBy: { createdAt: 'desc' },
      include: WITH_AGENT,
    });
  }

  /** One of the owner's devices; anyone else's, unclaimed or unknown: NOT_FOUND. */
  async get(accountId: string, id: string): Promise<DeviceRecord> {
    const device = isDeviceId(id)
      ? await this.#db.device.findFirst({ where: { id, accountId }, include: WITH_AGENT })
      : null;
    if (device === null) throw notFound(id);
    return device;
  }

  /**
   * Approves a pending device of the owner's: a `device` agent with these scopes and limits, whose
   * OAuth client (id = device id) may use the JWT bearer grant only.
   */
  async approve(
    accountId: string,
    id: string,
    approval: Approval,
    by: DecidedBy,
  ): Promise<{ device: Device; agent: Agent }> {
    const record = await this.get(accountId, id);
    assertPending(record);
    const now = this.#now();
    const made: { agent?: Agent } = {};
    let device: Device;
    try {
      device = await this.#db.$transaction(
        async (tx) => {
          // Locks the row: a concurrent decision waits here, then finds it decided.
          const taken = await tx.device.updateMany({
            where: { id, accountId, status: 'pending' },
            data: { status: 'approved', decidedAt: now },
          });
          if (taken.count === 0) assertPending({ ...record, status: 'approved' });
          made.agent = await this.#agents.createAgent({
            accountId,
            kind: 'device',
            name: record.name,
            scopes: [...approval.scopes],
            dailyLimit: approval.dailyLimit,
            monthlyLimit: approval.monthlyLimit,
            clientId: record.id,
            clientMetadata: { grant_types: [JWT_BEARER], token_endpoint_auth_method: 'none' },
          });
          await recordDecision(tx, {
            by,
            accountId,
            action: 'device.approve',
            target: id,
            agentId: made.agent.id,
            clientId: made.agent.clientId,
            detail: { name: record.name, ...grantDetail(made.agent) },
          });
          return tx.device.update({ where: { id }, data: { agentId: made.agent.id } });
        },
        { timeout: 15_000 },
      );
    } catch (error) {
      // The decision was rolled back: the agent made for it must not survive.
      if (made.agent !== undefined) await this.#agents.retire(accountId, made.agent.id);
      throw error;
    }
    await this.#events.deviceApproved(event(accountId, id, now));
    return { device, agent: made.agent as Agent };
  }

  /** Denies a pending device of the owner's; its key stays refused. */
  async deny(accountId: string, id: string, by: DecidedBy): Promise<Device> {
    const record = await this.get(accountId, id);
    assertPending(record);
    const now = this.#now();
    await this.#db.$transaction(async (tx) => {
      const taken = await tx.device.updateMany({
        where: { id, accountId, status: 'pending' },
        data: { status: 'denied', decidedAt: now },
      });
      if (taken.count === 0) assertPending({ ...record, status: 'approved' });
      await recordDecision(tx, {
        by,
        accountId,
        action: 'device.deny',
        target: id,
        detail: { name: record.name },
      });
    });
    return { ...record, status: 'denied', decidedAt: now };
  }

  /**
   * Revokes an approved device of the owner's, for good: its agent is revoked first (every token
   * dead and evicted from every cache before this returns), then the device is marked revoked.
   * Revoking a revoked device changes nothing.
   */
  async revoke(accountId: string, id: string, by: DecidedBy): Promise<Device> {
    const record = await this.get(accountId, id);
    if (record.status === 'revoked') return record;
    if (record.status !== 'approved')
      throw new AppError('CONFLICT', `Device ${id} is ${record.status}, not approved.`, {
        hint:
          record.status === 'pending'
            ? 'Deny a pending device instead.'
            : 'A denied device has nothing to revoke.',
      });
    // The device's decision is the event; its agent goes with it.
    if (record.agentId !== null) await this.#agents.retire(accountId, record.agentId);
    const now = this.#now();
    const device = await this.#db.$transaction(async (tx) => {
      const revoked = await tx.device.update({ where: { id }, data: { status: 'revoked', decidedAt: now } });
      await recordDecision(tx, {
        by,
        accountId,
        action: 'device.revoke',
        target: id,
        agentId: record.agentId,
        clientId: id,
        detail: { name: record.name },
      });
      return revoked;
    });
    await this.#events.deviceRevoked(event(accountId, id, now));
    return device;
  }
}

function event(accountId: string, deviceId: string, at: Date): DeviceEvent {
  return { accountId, clientId: deviceId, deviceId, at: at.toISOString() };
}

function assertPending(record: Pick<DeviceRecord, 'id' | 'status' | 'agent'>): void {
  const status = deviceStatus(record);
  if (status !== 'pending')
    throw new AppError('CONFLICT', `Device ${record.id} is already ${status}.`, {
      hint: 'A decision is final; the device registers a new key to ask again.',
    });
}
