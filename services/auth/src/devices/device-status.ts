/**
 * Where a device stands, following its agent: an approved device whose agent was revoked by any
 * path (the device page, the tokens page, `pag`) is revoked, whatever its row still says. A
 * DeviceRecord is a device read with what that depends on (include WITH_AGENT).
 */
import type { Agent } from '../agents/agent-store.ts';
import type { Device } from '../generated/prisma/client.ts';

export type DeviceStatusValue = Device['status'];

/** A device with the agent made on approval. */
export type DeviceRecord = Device & {
  agent: Pick<Agent, 'id' | 'status' | 'scopes' | 'dailyLimit' | 'monthlyLimit'> | null;
};

/** The Prisma include that reads a DeviceRecord. */
export const WITH_AGENT = {
  agent: { select: { id: true, status: true, scopes: true, dailyLimit: true, monthlyLimit: true } },
} as const;

export function deviceStatus(device: {
  status: DeviceStatusValue;
  agent: Pick<Agent, 'status'> | null;
}): DeviceStatusValue {
  if (device.status !== 'approved') return device.status;
  return device.agent?.status === 'active' ? 'approved' : 'revoked';
}
