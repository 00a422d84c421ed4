/**
 * Who meets on the bus, with no dependency of its own (subjects, endpoints and the audit event
 * schema all read it): one NATS user per service, the queue group each service's replicas share,
 * and the services that publish audit events.
 */

/**
 * One NATS user per service. The nats-server configuration that gives each user its permissions
 * (deploy/nats/nats-server.conf) is generated from SubjectTable (subjects.ts).
 */
export const NATS_USERS = ['gateway', 'auth', 'brain', 'proxy', 'trigger', 'audit'] as const;
export type NatsUser = (typeof NATS_USERS)[number];

/** Queue group names: a service's replicas share its request subjects. */
export const QueueGroups = {
  auth: 'auth',
  gateway: 'gateway',
  brain: 'brain',
  proxy: 'proxy',
  trigger: 'trigger',
  audit: 'audit',
} as const;

/** Services that publish audit events, one subject each under the AUDIT stream. */
export const AUDIT_SOURCES = ['gateway', 'auth', 'brain', 'proxy', 'trigger'] as const;
export type AuditSource = (typeof AUDIT_SOURCES)[number];
