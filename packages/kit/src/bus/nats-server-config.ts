/**
 * The nats-server configuration of a deployment, generated from the contracts' SubjectTable
 * (`pnpm docs` writes deploy/nats/nats-server.conf; a test keeps the file current). One user per
 * service, each allowed to publish only what it sends and to subscribe only to what it answers:
 *
 * - a request subject is published by its one sender and subscribed to by its one answerer, who
 *   may reply once to each request it received (`allow_responses`), nowhere else; a service
 *   answering a streamed endpoint may send a stream's parts instead (STREAM_RESPONSES), and the
 *   requester of a streamed reply may answer its parts (that is its cancel);
 * - a request that names the caller in `pag-*` headers has the gateway as its only sender, so no
 *   other service can forge a caller;
 * - events are published by their service and readable by every service;
 * - replies come back under the user's own inbox prefix (`_INBOX.<user>.>`), private to it;
 * - the audit stream: each source publishes its own audit subject; the gateway creates the stream
 *   (JetStream API), the audit service reads it through its durable consumer.
 *
 * Passwords are not in the file: nats-server reads `$NATS_<USER>_PASSWORD` from its environment,
 * as a configuration value (its parser reads the variable's text as it would the file's), so the
 * value is written in double quotes.
 */
import type { NatsUser, SubjectRoute } from '@pag/contracts';
import {
  AUDIT_SOURCES,
  AuditStream,
  auditSubject,
  EventSubjects,
  NATS_USERS,
  natsInboxPrefix,
} from '@pag/contracts';
import { STREAM_MAX_DURATION_MS, STREAM_MAX_EVENTS } from './stream-wire.ts';

/**
 * nats-server's response permission: how many messages may go to the reply subject of each
 * message received, for how long after it arrived (`allow_responses: true` is one within 2 min).
 */
export interface ResponsePermission {
  max: number;
  expiresMs: number;
}

export interface NatsPermissions {
  publish: string[];
  subscribe: string[];
  /**
   * May answer the messages it received (and nothing else on reply subjects): false, true (one
   * reply each, nats-server's default), or the streamed answer's allowance.
   */
  allowResponses: boolean | ResponsePermission;
}

/**
 * A service answering a streamed endpoint sends `accepted`, up to STREAM_MAX_EVENTS events and the
 * reply to one reply subject, within STREAM_MAX_DURATION_MS (stream-wire.ts). nats-server has one
 * response permission per user, so the allowance covers every request that service answers.
 */
export const STREAM_RESPONSES: ResponsePermission = {
  max: STREAM_MAX_EVENTS + 2,
  expiresMs: STREAM_MAX_DURATION_MS,
};

const JS_API = '$JS.API';
/** jetstreamManager() asks the account's JetStream info at connect: every user needs it. */
const JS_ACCOUNT_INFO = `${JS_API}.INFO`;

function jetStreamGrants(user: NatsUser): string[] {
  const stream = AuditStream.name;
  const durable = AuditStream.consumer;
  // Both declare the stream at start (idempotently): either may start first.
  const declareStream = ['INFO', 'CREATE', 'UPDATE'].map((action) => `${JS_API}.STREAM.${action}.${stream}`);
  if (user === 'gateway') return declareStream;
  if (user === 'audit')
    return [
      ...declareStream,
      `${JS_API}.CONSUMER.INFO.${stream}.${durable}`,
      `${JS_API}.CONSUMER.CREATE.${stream}.${durable}`,
      `${JS_API}.CONSUMER.CREATE.${stream}.${durable}.>`,
      `${JS_API}.CONSUMER.DURABLE.CREATE.${stream}.${durable}`,
      `${JS_API}.CONSUMER.MSG.NEXT.${stream}.${durable}`,
      `$JS.ACK.${stream}.${durable}.>`,
    ];
  return [];
}

/** What `user` may publish and subscribe to, from the table. */
export function natsPermissions(user: NatsUser, table: readonly SubjectRoute[]): NatsPermissions {
  const sends = table.filter((route) => route.from === user).map((route) => route.subject);
  const answers = table.filter((route) => route.kind === 'request' && route.to === user);
  const hearsEvents = table.some((route) => route.kind === 'event');
  const audits = (AUDIT_SOURCES as readonly string[]).includes(user);
  return {
    publish: [
      ...sends,
      ...(audits ? [auditSubject(user as (typeof AUDIT_SOURCES)[number])] : []),
      JS_ACCOUNT_INFO,
      ...jetStreamGrants(user),
    ],
    subscribe: [
      ...answers.map((route) => route.subject),
      ...(hearsEvents ? [EventSubjects.all] : []),
      `${natsInboxPrefix(user)}.>`,
    ],
    allowResponses: answers.some((route) => route.streams)
      ? STREAM_RESPONSES
      : // A requester of a streamed reply cancels it by answering one of its parts.
        answers.length > 0 || table.some((route) => route.streams && route.from === user),
  };
}

const quote = (subject: string) => JSON.stringify(subject);
const list = (subjects: string[], indent: string) =>
  `[\n${subjects.map((subject) => `${indent}  ${quote(subject)}`).join(',\n')}\n${indent}]`;

function allowResponses(permission: boolean | ResponsePermission): string[] {
  if (permission === false) return [];
  if (permission === true) return ['        allow_responses: true'];
  return [`        allow_responses: { max: ${permission.max}, expires: "${permission.expiresMs / 1000}s" }`];
}

export interface NatsServerConfigOptions {
  /**
   * A user with no permissions block (nats-server allows it everything), password
   * `$NATS_<NAME>_PASSWORD`: for tests that watch the bus (the testkit's GatewayContainer), never
   * in deploy/nats/nats-server.conf.
   */
  superuser?: string;
}

const passwordVariable = (user: string) => `$NATS_${user.toUpperCase()}_PASSWORD`;

/** The whole configuration file's text. */
export function renderNatsServerConfig(
  table: readonly SubjectRoute[],
  options: NatsServerConfigOptions = {},
): string {
  const superuser = options.superuser;
  const superusers = superuser
    ? [`    {\n      user: ${superuser}\n      password: ${passwordVariable(superuser)}\n    }`]
    : [];
  const users = NATS_USERS.map((user) => {
    const permissions = natsPermissions(user, table);
    const lines = [
      `    {`,
      `      user: ${user}`,
      `      password: ${passwordVariable(user)}`,
      `      permissions: {`,
      `        publish: { allow: ${list(permissions.publish, '        ')} }`,
      `        subscribe: { allow: ${list(permissions.subscribe, '        ')} }`,
      ...allowResponses(permissions.allowResponses),
      `      }`,
      `    }`,
    ];
    return lines.join('\n');
  });
  return [
    '# nats-server configuration for the personal API gateway: one user per service, each allowed',
    '# its own subjects only. Generated from packages/contracts/src/subjects.ts (SubjectTable) by',
    '# `pnpm docs`; do not edit by hand (test/generated-docs.test.ts checks that it is current).',
    '#',
    "# Each password comes from the server's environment (NATS_GATEWAY_PASSWORD, NATS_AUTH_PASSWORD, …),",
    '# read as a configuration value, so in double quotes: NATS_GATEWAY_PASSWORD=\'"long-random-secret"\'',
    '# (a bcrypt hash from `nats server passwd` works the same way, also quoted).',
    '# Each service signs in with NATS_USER=<its name> and NATS_PASSWORD (or swap `user`/`password`',
    '# for `nkey: <public key>` and give the service NATS_NKEY_SEED). See deploy/README.md.',
    '',
    'jetstream {}',
    '',
    'authorization {',
    '  users = [',
    [...users, ...superusers].join(',\n'),
    '  ]',
    '}',
    '',
  ].join('\n');
}
