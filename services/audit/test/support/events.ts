/** Audit events for tests: valid by default, each with a fresh event id. */
import { randomUUID } from 'node:crypto';
import type { ActionAuditEvent, RequestAuditEvent } from '@pag/contracts';

export const ACCOUNT_A = '3b6a1e0c-2f4d-4a8e-9c1b-7d5e6f8a9b0c';

export function requestEvent(overrides: Partial<RequestAuditEvent> = {}): RequestAuditEvent {
  return {
    kind: 'request',
    eventId: randomUUID(),
    source: 'gateway',
    requestId: `req-${randomUUID().slice(0, 8)}`,
    time: new Date().toISOString(),
    accountId: ACCOUNT_A,
    clientId: 'client-1',
    agentId: 'agt_1',
    decision: 'allowed',
    reason: null,
    tokenKind: 'dashboard',
    clientAddress: '127.0.0.1',
    method: 'GET',
    path: '/api/v1/memory',
    status: 200,
    latencyMs: 1.25,
    bytesIn: 0,
    bytesOut: 120,
    ...overrides,
  };
}

export function actionEvent(overrides: Partial<ActionAuditEvent> = {}): ActionAuditEvent {
  return {
    kind: 'action',
    eventId: randomUUID(),
    source: 'proxy',
    requestId: `req-${randomUUID().slice(0, 8)}`,
    time: new Date().toISOString(),
    accountId: ACCOUNT_A,
    clientId: 'client-1',
    agentId: 'agt_1',
    decision: 'allowed',
    reason: null,
    actor: { type: 'agent', id: 'agt_1' },
    action: 'proxy.call',
    target: 'github',
    status: 200,
    latencyMs: 80.5,
    detail: { upstream: 'api.github.com', retried: false, attempts: 1 },
    ...overrides,
  };
}
