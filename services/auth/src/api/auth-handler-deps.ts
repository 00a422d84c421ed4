/**
 * What the auth service's bus handlers need, taken from the composition root (core.ts), which
 * built each store once with its event publisher: the accounts, the agents (their grant to the
 * trigger service), the handshakes (creation within the limits, status) and the device
 * registrations.
 */
import type { AuthCore } from '../core.ts';
import type { AccountStore } from '../store/account-store.ts';
import type { AgentStore } from '../store/agent-store.ts';
import type { DeviceRegistrations } from '../store/device-registration.ts';
import type { HandshakeStore } from '../store/handshake-store.ts';

export interface AuthHandlerDeps {
  accounts: AccountStore;
  agents: AgentStore;
  handshakes: HandshakeStore;
  devices: DeviceRegistrations;
}

export function authHandlerDeps(core: AuthCore): AuthHandlerDeps {
  return {
    accounts: core.accounts,
    agents: core.agents,
    handshakes: core.handshakes,
    devices: core.deviceRegistrations,
  };
}
