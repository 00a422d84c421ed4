/**
 * The audit events of decisions the owner or the operator takes (docs/adr/0041): who
 * (`actor`), what (`action`, `target`) and the outcome. Every store call that decides says who
 * decides (DecidedBy): the signed-in owner (the dashboard; actor `owner`, id = the account) or
 * the operator (`pnpm pag …`; actor `operator`, no id); an agent collecting its handshake's token acts
 * for itself (actor `agent`, id = the agent). The event is written to the outbox by the
 * decision's own transaction (store/audit-outbox.ts) and published later by the running service,
 * with source `auth` whoever decided.
 */
import { randomUUID } from 'node:crypto';
import type { ActionAuditEvent, AuditDecision, AuditDetail } from '@pag/contracts';
import { requestIdFor } from '@pag/contracts';
import { actionAuditEvent } from '@pag/kit';

export interface DecidedBy {
  actor: 'owner' | 'operator' | 'agent';
  /** The request that carried the decision (the gateway's id), or one made for the command. */
  requestId: string;
  /** The acting agent, for actor `agent` (an agent collecting its handshake's token). */
  agentId?: string;
}

/** A decision of the signed-in owner, on the request with this id (a new id when none is safe). */
export function byOwner(requestId: string | undefined): DecidedBy {
  return { actor: 'owner', requestId: requestIdFor(requestId || undefined) };
}

/** An act of an agent itself (collecting its handshake's token), on the request with this id. */
export function byAgent(requestId: string, agentId: string): DecidedBy {
  return { actor: 'agent', requestId, agentId };
}

/** A decision of the operator (`pnpm pag …`): a request id of its own, so its events correlate. */
export function byOperator(): DecidedBy {
  return { actor: 'operator', requestId: `pag-${randomUUID()}` };
}

export interface Decision {
  by: DecidedBy;
  /** The owner account the decision is about (and, for an owner, the actor); null: none known (a sign-in with an unknown email). */
  accountId: string | null;
  /** `<resource>.<verb>`: `handshake.approve`, `token.revoke`, … */
  action: string;
  /** What was decided about: a handshake, device, agent, client or account id. */
  target: string | null;
  clientId?: string | null;
  agentId?: string | null;
  decision?: AuditDecision;
  reason?: string | null;
  /** Facts about it (granted scopes, limits): never a token, a code or a secret. */
  detail?: AuditDetail;
}

export function decisionEvent(decision: Decision): ActionAuditEvent {
  const { by, accountId } = decision;
  return actionAuditEvent('auth', {
    requestId: by.requestId,
    accountId,
    clientId: decision.clientId ?? null,
    agentId: decision.agentId ?? null,
    actor: actorOf(by, accountId),
    action: decision.action,
    target: decision.target,
    decision: decision.decision ?? 'allowed',
    reason: decision.reason ?? null,
    status: null,
    latencyMs: null,
    detail: decision.detail ?? {},
  });
}

function actorOf(by: DecidedBy, accountId: string | null): ActionAuditEvent['actor'] {
  if (by.actor === 'owner') return { type: 'owner', id: accountId };
  if (by.actor === 'agent') return { type: 'agent', id: by.agentId ?? null };
  return { type: 'operator', id: null };
}

/** A detail value for a list of scopes, a limit or a date: strings, integers and null only. */
export function grantDetail(grant: {
  scopes: readonly string[];
  dailyLimit?: number | null | undefined;
  monthlyLimit?: number | null | undefined;
  expiresAt?: Date | null | undefined;
}): AuditDetail {
  return {
    scopes: grant.scopes.join(' ').slice(0, 500),
    dailyLimit: grant.dailyLimit ?? null,
    monthlyLimit: grant.monthlyLimit ?? null,
    expiresAt: grant.expiresAt?.toISOString() ?? null,
  };
}
