/**
 * What the auth service tells the other services (EventSubjects): tokens that stopped working,
 * handshake decisions, device approvals and revocations. Every store that decides one of these
 * is built with an AuthEvents (core.ts), so each path that decides (the dashboard, the operator
 * CLI, the API) publishes the same events:
 * - the running service publishes on its bus (bus-events.ts);
 * - a process beside it that shares only the database (`pnpm pag …`) sends them through
 *   PostgreSQL NOTIFY, and every running replica relays them to its bus (store/event-relay.ts).
 */
import type { DeviceEvent, HandshakeDecidedEvent } from '@pag/contracts';

/** Access tokens that stopped working: one token (tokenSha256) or every token of a client (null). */
export interface RevokedAccess {
  accountId: string;
  clientId: string;
  tokenSha256: string | null;
}

export interface AuthEvents {
  /** events.auth.token.revoked, one per entry; awaited before the revoking request answers. */
  tokensRevoked(revoked: RevokedAccess[]): Promise<void>;
  /** events.auth.handshake.decided */
  handshakeDecided(event: HandshakeDecidedEvent): Promise<void>;
  /** events.auth.device.approved */
  deviceApproved(event: DeviceEvent): Promise<void>;
  /** events.auth.device.revoked */
  deviceRevoked(event: DeviceEvent): Promise<void>;
}
