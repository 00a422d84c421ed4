/**
 * An audit event as the row the log stores, before it has a place (seq) and a hash: the flat
 * AuditRecord shape, with every value already in the form PostgreSQL gives back, so that a row
 * read back hashes the same as the row written: times to milliseconds (TIMESTAMPTZ(3)) in UTC,
 * latency rounded to 3 decimals (NUMERIC(12,3)).
 */
import type { AuditEvent } from '@pag/contracts';
import type { ChainContent } from './chain-hash.ts';

/** `action` of a request event. */
export const REQUEST_ACTION = 'http.request';

/** An instant as PostgreSQL's TIMESTAMPTZ(3) returns it to JavaScript: ISO 8601, milliseconds, UTC. */
export function storedTime(time: string | Date): string {
  return new Date(time).toISOString();
}

/** Milliseconds as NUMERIC(12,3) keeps them. */
export function storedLatency(latencyMs: number | null): number | null {
  return latencyMs === null ? null : Math.round(latencyMs * 1000) / 1000;
}

export function recordContent(event: AuditEvent, recordedAt: Date): ChainContent {
  const common = {
    eventId: event.eventId.toLowerCase(),
    kind: event.kind,
    source: event.source,
    requestId: event.requestId,
    time: storedTime(event.time),
    recordedAt: storedTime(recordedAt),
    accountId: event.accountId,
    clientId: event.clientId,
    agentId: event.agentId,
    decision: event.decision,
    reason: event.reason,
  };
  if (event.kind === 'request') {
    return {
      ...common,
      tokenKind: event.tokenKind,
      actorType: null,
      actorId: null,
      action: REQUEST_ACTION,
      // A proxied call's service and what the proxy did upstream (docs/adr/0069); else none.
      target: event.target ?? null,
      clientAddress: event.clientAddress,
      method: event.method,
      path: event.path,
      status: event.status,
      latencyMs: storedLatency(event.latencyMs),
      bytesIn: event.bytesIn,
      bytesOut: event.bytesOut,
      detail: event.detail ?? {},
    };
  }
  return {
    ...common,
    tokenKind: null,
    actorType: event.actor.type,
    actorId: event.actor.id,
    action: event.action,
    target: event.target,
    clientAddress: null,
    method: null,
    path: null,
    status: event.status,
    latencyMs: storedLatency(event.latencyMs),
    bytesIn: null,
    bytesOut: null,
    detail: event.detail,
  };
}
