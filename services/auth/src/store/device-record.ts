/**
 * A DeviceRecord is a device read with what its status depends on (devices/device-status.ts): the
 * agent made on approval. WITH_AGENT is the Prisma include that reads one.
 */
import type { Agent, Device } from '../generated/prisma/client.ts';

export type { Device } from '../generated/prisma/client.ts';

/** A device with the agent made on approval. */
export type DeviceRecord = Device & {
  agent: Pick<Agent, 'id' | 'status' | 'scopes' | 'dailyLimit' | 'monthlyLimit'> | null;
};

export const WITH_AGENT = {
  agent: { select: { id: true, status: true, scopes: true, dailyLimit: true, monthlyLimit: true } },
} as const;
