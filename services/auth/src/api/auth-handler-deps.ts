/**
 * What the auth service's bus handlers need, built once from the core: the accounts, the
 * handshakes (creation within the limits, status) and the device registrations.
 */
import type { AccountStore } from '../accounts/mod.ts';
import type { AuthCore } from '../core.ts';
import { DeviceRegistrations } from '../devices/device-registration.ts';
import { HandshakeStore } from '../handshakes/handshake-store.ts';

export interface AuthHandlerDeps {
  accounts: AccountStore;
  handshakes: HandshakeStore;
  devices: DeviceRegistrations;
}

export function authHandlerDeps(core: AuthCore): AuthHandlerDeps {
  return {
    accounts: core.accounts,
    handshakes: new HandshakeStore({ prisma: core.prisma, agents: core.agents, publicUrl: core.publicUrl }),
    devices: new DeviceRegistrations({ prisma: core.prisma, publicUrl: core.publicUrl }),
  };
}
