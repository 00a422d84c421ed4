/**
 * The rules of a handshake's life that need no database: what its id looks like, what status the
 * agent sees, that a decision is taken once, and that approval can only narrow the request.
 */
import type { HandshakeStatusValue } from '@pag/contracts';
import { AppError } from '@pag/contracts';
import { agentStanding, checkScopes } from '../agents/agent-rules.ts';

/** What a handshake's status depends on: its own, and the state of the agent made on approval. */
export interface HandshakeStanding {
  status: 'pending' | 'approved' | 'denied';
  agent: { status: string; expiresAt: Date | null } | null;
}

/** `hs_` and 22 base64url characters (16 random bytes), as newId makes them. */
const HANDSHAKE_ID = /^hs_[A-Za-z0-9_-]{22}$/;

/** What the agent sees: an approved handshake whose agent no longer holds a working token is denied. */
export function effectiveStatus(record: HandshakeStanding, now = new Date()): HandshakeStatusValue {
  if (record.status !== 'approved') return record.status;
  const working = record.agent !== null && agentStanding(record.agent, now) === 'active';
  return working ? 'approved' : 'denied';
}

/**
 * How long the token of an approved handshake works when the owner does not choose: 90 days.
 * A handshake is asked for by an agent the owner did not set up themselves; its access should
 * lapse unless renewed (a dashboard token is the way to a longer-lived one).
 */
export const HANDSHAKE_TOKEN_DAYS = 90;

export function defaultHandshakeExpiry(now: Date): Date {
  return new Date(now.getTime() + HANDSHAKE_TOKEN_DAYS * 24 * 3600 * 1000);
}

export function isHandshakeId(value: string): boolean {
  return HANDSHAKE_ID.test(value);
}

export function notFound(id: string): AppError {
  return new AppError('NOT_FOUND', `No handshake ${isHandshakeId(id) ? id : 'with this id'} among yours.`, {
    hint: 'Pending requests are listed on /dashboard/handshakes; an unassigned one must be claimed first.',
  });
}

export function assertPending(record: { id: string; status: HandshakeStanding['status'] }): void {
  if (record.status !== 'pending')
    throw new AppError('CONFLICT', `Handshake ${record.id} was already decided.`, {
      hint: 'A decision is final; the agent may ask again with a new handshake.',
    });
}

/** The requested scopes or fewer, never more, at least one. */
export function grantedScopes(requested: readonly string[], chosen: readonly string[] | undefined): string[] {
  const scopes = checkScopes([...(chosen ?? requested)]);
  const extra = scopes.find((scope) => !requested.includes(scope));
  if (extra !== undefined)
    throw new AppError('INVALID_REQUEST', `"${extra}" was not requested; you can only narrow the request.`, {
      hint: `Choose among the requested scopes: ${requested.join(', ')}.`,
    });
  return scopes;
}
