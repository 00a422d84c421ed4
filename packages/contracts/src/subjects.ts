/**
 * NATS subject names: the only strings services use to meet. Request/reply subjects are
 * `<service>.<resource>.<verb>` and are answered by the named service in a queue group of the
 * same name; events are `events.<service>.<resource>.<past-tense verb>`, published by the named
 * service to anyone listening; audit events go to the durable stream AUDIT.
 *
 * | subject                        | kind    | from → to           | carries                           |
 * |--------------------------------|---------|---------------------|-----------------------------------|
 * | auth.handshake.create          | request | gateway → auth      | POST /api/v1/handshakes           |
 * | auth.handshake.status          | request | gateway → auth      | GET  /api/v1/handshakes/:id/status|
 * | auth.device.register           | request | gateway → auth      | POST /api/v1/agentic/asc/register |
 * | auth.account.get               | request | brain → auth        | OwnerAccount: email, plan         |
 * | auth.agents.grant              | request | trigger → auth      | an agent's status, scopes, limits |
 * | gateway.usage.get              | request | auth → gateway      | agents' usage for the dashboard   |
 * | gateway.usage.charge           | request | trigger → gateway   | a trigger run counted as a request|
 * | brain.context.get              | request | gateway → brain     | BrainContext: persona, identity, memory|
 * | brain.memory.create            | request | gateway → brain     | POST /api/v1/memory               |
 * | brain.knowledge.list           | request | gateway → brain     | GET  /api/v1/brain/knowledge-base |
 * | brain.chat.send                | request | gateway → brain     | POST /api/v1/brain/chat           |
 * | brain.personas.list            | request | gateway → brain     | GET  /api/v1/personas             |
 * | brain.identity.get             | request | gateway → brain     | GET  /api/v1/identity             |
 * | brain.memory.delete            | request | gateway → brain     | DELETE /api/v1/memory/:id         |
 * | brain.conversations.get        | request | gateway → brain     | GET  /api/v1/brain/conversations/:id |
 * | brain.prompt.run               | request | trigger → brain     | a trigger run's prompt, as its agent |
 * | brain.owner-<part>.<verb>      | request | auth → brain        | the dashboard's personas, knowledge, identity, memory, provider |
 * | proxy.calls.forward            | request | brain → proxy       | a trigger run's service call      |
 * | proxy.services.list            | request | gateway → proxy     | GET  /api/v1/services (and context)|
 * | proxy.vault-tokens.list        | request | gateway → proxy     | GET  /api/v1/vault/tokens         |
 * | proxy.connectors.list          | request | gateway → proxy     | GET  /api/v1/connectors           |
 * | proxy.owner-connect<ors>.<verb> | request | auth → proxy        | the dashboard's services page: list, connect (OAuth start/finish, API key), disconnect |
 * | proxy.owner-<settings|client|custom>.<verb> | request | auth → proxy | the owner's own OAuth clients and connectors (docs/adr/0068) |
 * | trigger.triggers.create        | request | gateway → trigger   | POST /api/v1/triggers             |
 * | trigger.triggers.list          | request | gateway → trigger   | GET  /api/v1/triggers             |
 * | trigger.triggers.get           | request | gateway → trigger   | GET  /api/v1/triggers/:id         |
 * | trigger.triggers.run           | request | gateway → trigger   | POST /api/v1/triggers/:id/run     |
 * | trigger.runs.list              | request | gateway → trigger   | GET  /api/v1/triggers/:id/runs    |
 * | trigger.triggers.pause|resume  | request | gateway → trigger   | POST /api/v1/triggers/:id/pause|resume |
 * | trigger.triggers.delete        | request | gateway → trigger   | DELETE /api/v1/triggers/:id       |
 * | trigger.owner-triggers.<verb>  | request | auth → trigger      | the dashboard's triggers page     |
 * | audit.records.list             | request | auth → audit        | one owner's audit rows (dashboard)|
 * | events.auth.token.revoked      | event   | auth → everyone     | evicts introspection caches       |
 * | events.auth.device.approved    | event   | auth → everyone     | a device may now call             |
 * | events.auth.device.revoked     | event   | auth → everyone     | evicts introspection caches       |
 * | events.auth.handshake.decided  | event   | auth → everyone     | handshake approved or denied      |
 * | events.<service>.presence.announced | event | each service → everyone | an instance runs or stops (discovery) |
 * | events.gateway.presence.requested | event | gateway → everyone  | every instance, announce yourself now |
 * | audit.events.<service>         | stream  | every service → audit | one audit event per request or action |
 */
import type { AuditSource, NatsUser } from './bus-users.ts';
import { NATS_USERS } from './bus-users.ts';
import { subjectsOf } from './endpoints/define-endpoint.ts';
import {
  AuditEndpoints,
  AuthEndpoints,
  BrainEndpoints,
  BrainOwnerEndpoints,
  BrainServiceEndpoints,
  EndpointList,
  GatewayEndpoints,
  ProxyEndpoints,
  ProxyOwnerEndpoints,
  TriggerEndpoints,
  TriggerOwnerEndpoints,
} from './endpoints/endpoint-list.ts';
import { routeById } from './routes/route-table.ts';

export type { AuditSource, NatsUser } from './bus-users.ts';
export { AUDIT_SOURCES, NATS_USERS, QueueGroups } from './bus-users.ts';

/** The request subjects by service, read from the endpoints (endpoints/endpoint-list.ts). */
export const AuthSubjects = subjectsOf(AuthEndpoints);
export const GatewaySubjects = subjectsOf(GatewayEndpoints);
export const BrainSubjects = subjectsOf(BrainEndpoints);
export const BrainOwnerSubjects = subjectsOf(BrainOwnerEndpoints);
export const BrainServiceSubjects = subjectsOf(BrainServiceEndpoints);
export const ProxySubjects = subjectsOf(ProxyEndpoints);
export const ProxyOwnerSubjects = subjectsOf(ProxyOwnerEndpoints);
export const TriggerSubjects = subjectsOf(TriggerEndpoints);
export const TriggerOwnerSubjects = subjectsOf(TriggerOwnerEndpoints);
export const AuditSubjects = subjectsOf(AuditEndpoints);

/** Events: published once, received by every subscriber (no queue group) so every replica acts. */
export const EventSubjects = {
  tokenRevoked: 'events.auth.token.revoked',
  deviceApproved: 'events.auth.device.approved',
  deviceRevoked: 'events.auth.device.revoked',
  handshakeDecided: 'events.auth.handshake.decided',
  /** Subscribe to every event of every service. */
  all: 'events.>',
} as const;

/**
 * Live service discovery (schemas/presence.ts, docs/adr/0062): each service announces its
 * instances on its own subject; the gateway, which keeps the directory, may ask all to announce.
 */
export const PresenceSubjects = {
  /** Every service's announcements, for the directory. */
  announcedAll: 'events.*.presence.announced',
  requested: 'events.gateway.presence.requested',
} as const;

/** The subject one service's instances announce themselves on, e.g. `events.brain.presence.announced`. */
export function presenceSubject(service: NatsUser): `events.${NatsUser}.presence.announced` {
  return `events.${service}.presence.announced`;
}

/** The durable audit stream (JetStream) and its consumer. */
export const AuditStream = {
  name: 'AUDIT',
  subjects: ['audit.events.>'],
  /** The audit service's durable consumer; replicas share it. */
  consumer: 'audit-writer',
} as const;

/** The subject a service publishes its audit events to, e.g. `audit.events.gateway`. */
export function auditSubject(source: AuditSource): `audit.events.${AuditSource}` {
  return `audit.events.${source}`;
}

/** One row of the table at the top of this file, as data. */
export interface SubjectRoute {
  subject: string;
  kind: 'request' | 'event';
  /** The only user allowed to publish it. */
  from: NatsUser;
  /** Request: the user answering it (queue group). Event: every user may listen. */
  to: NatsUser | 'everyone';
  /**
   * The message names the caller in `pag-*` headers (MessageHeaders) that the receiver believes:
   * only the gateway, which learnt them by introspection, may publish such a subject.
   */
  carriesCaller: boolean;
  /** Request: its route streams (route-types.ts), so the answer may be several messages. */
  streams: boolean;
}

const event = (subject: string, from: NatsUser): SubjectRoute => ({
  subject,
  kind: 'event',
  from,
  to: 'everyone',
  carriesCaller: false,
  streams: false,
});

/** Every request and event subject with its one publisher and its receivers. */
export const SubjectTable: readonly SubjectRoute[] = [
  ...EndpointList.map(
    (endpoint): SubjectRoute => ({
      subject: endpoint.subject,
      kind: 'request',
      from: endpoint.from,
      to: endpoint.to,
      carriesCaller: endpoint.caller !== 'service',
      streams: endpoint.routeId !== null && routeById(endpoint.routeId).stream,
    }),
  ),
  event(EventSubjects.tokenRevoked, 'auth'),
  event(EventSubjects.deviceApproved, 'auth'),
  event(EventSubjects.deviceRevoked, 'auth'),
  event(EventSubjects.handshakeDecided, 'auth'),
  ...NATS_USERS.map((service) => event(presenceSubject(service), service)),
  event(PresenceSubjects.requested, 'gateway'),
];

/**
 * The prefix of a user's reply inboxes (nats.js `inboxPrefix`): replies to one service's requests
 * land under its own prefix, so no other user may subscribe to them.
 */
export function natsInboxPrefix(user: string): string {
  // One subject token, whatever a connection is named.
  return `_INBOX.${user.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}
