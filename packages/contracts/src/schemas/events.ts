/**
 * Messages that travel only over NATS: audit events (stream AUDIT), auth events that evict
 * introspection caches, and the envelope the gateway sends on request subjects. Caller identity
 * and the request id travel in headers (MessageHeaders), not in these payloads.
 */
import { z } from 'zod';
import { AUDIT_SOURCES } from '../bus-users.ts';
import { TOKEN_KINDS } from './auth.ts';
import { ResourceId, Timestamp } from './common.ts';

/** Header names on NATS messages (and the request id on HTTP too). */
export const MessageHeaders = {
  requestId: 'x-request-id',
  accountId: 'pag-account-id',
  clientId: 'pag-client-id',
  scopes: 'pag-scopes',
  tokenKind: 'pag-token-kind',
  /** The agent the token belongs to, when introspection names one. */
  agentId: 'pag-agent-id',
  /** The caller's network address as the gateway saw it (rate limits of unauthenticated routes). */
  clientAddress: 'pag-client-address',
} as const;

/**
 * The HTTP header by which the auth and proxy services know a request came from the gateway: an
 * HMAC under the deployment's GATEWAY_SECRET over the method, path, request id and time
 * (kit's gateway-proof.ts; docs/adr/0024-internal-services-trust-nothing-unverified.md).
 */
export const GATEWAY_PROOF_HEADER = 'pag-gateway-proof';

/**
 * The answer header by which the proxy service tells the gateway what became of a call it
 * handled (ProxiedCall), for the gateway's one audit row of it (docs/adr/0069). The gateway takes
 * it off every answer it forwards from the proxy; the proxy drops such headers from what a
 * connected service answers. Handed over in process, the same facts travel as an object.
 */
export const PROXY_CALL_HEADER = 'pag-proxy-call';

/** A request id taken from a caller: a short token of safe characters (it lands in logs and headers). */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request id to use for a request: the one it came with (X-Request-Id) when that is safe to
 * log and pass on, so ids correlate end to end, otherwise a new one.
 */
export function requestIdFor(incoming: string | undefined): string {
  return incoming !== undefined && SAFE_REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
}

/** What the gateway sends on a request subject; the reply is the route's response body. */
export const DispatchRequest = z.object({
  params: z.record(z.string(), z.string()).describe('Decoded path parameters.'),
  query: z.record(z.string(), z.string()),
  body: z.unknown().describe('The validated request body, or null.'),
  headers: z
    .record(z.string(), z.string())
    .optional()
    .describe(
      "The client's request headers the route names (RouteDefinition.forwardHeaders), lower-case; no other header ever travels.",
    ),
});
export type DispatchRequest = z.infer<typeof DispatchRequest>;

export const AUDIT_DECISIONS = ['allowed', 'denied', 'error'] as const;
export type AuditDecision = (typeof AUDIT_DECISIONS)[number];

/**
 * Who wrote an audit event: the services that publish on the AUDIT stream. An operator's `pag`
 * decision is the auth service's (its outbox relays it), with the operator as the actor.
 */
export const AUDIT_EVENT_SOURCES = AUDIT_SOURCES;
export type AuditEventSource = (typeof AUDIT_EVENT_SOURCES)[number];

/** Who acted, for an action event: an agent, the owner (dashboard), the operator (CLI), a schedule. */
export const AUDIT_ACTOR_TYPES = ['agent', 'owner', 'operator', 'schedule', 'service'] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

/** `<resource>.<verb>`, lower case: `proxy.call`, `handshake.approve`, `token.revoke`, `trigger.run`. */
export const AUDIT_ACTION_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

const auditCommon = {
  eventId: z.uuid().describe('Deduplication id (JetStream Nats-Msg-Id); the log stores an id once.'),
  source: z.enum(AUDIT_EVENT_SOURCES),
  requestId: z.string().min(1).max(128),
  time: Timestamp,
  accountId: z.string().nullable().describe('The owner account acted on; null before authentication.'),
  clientId: z.string().nullable().describe("The agent's OAuth client; null before authentication."),
  agentId: z.string().nullable().describe('The agent record, when one acted or was acted for.'),
  decision: z.enum(AUDIT_DECISIONS),
  reason: z.string().max(200).nullable().describe('The error code when denied or failed.'),
};

/** A small map of facts about an action: never a secret, a token, a body or a query string. */
export const AuditDetail = z
  .record(z.string().min(1).max(40), z.union([z.string().max(500), z.int(), z.boolean(), z.null()]))
  .refine((detail) => Object.keys(detail).length <= 16, { message: 'At most 16 entries.' });
export type AuditDetail = z.infer<typeof AuditDetail>;

/** One request that reached the gateway (source `gateway`): every answer it gave. */
export const RequestAuditEvent = z.object({
  kind: z.literal('request'),
  ...auditCommon,
  tokenKind: z.enum(TOKEN_KINDS).nullable(),
  clientAddress: z.string().describe("The TCP peer's address (client-sent forwarding headers are ignored)."),
  method: z.string(),
  path: z.string().describe('The path without the query string (which may carry secrets).'),
  status: z
    .int()
    .min(100)
    .max(599)
    .describe('The status sent; 499 when the client went away before any answer.'),
  latencyMs: z.number().min(0).describe('From arrival until the answer was ready (before the audit ack).'),
  bytesIn: z.int().min(0).describe('Request body bytes (Content-Length, or counted for a chunked body).'),
  bytesOut: z
    .int()
    .min(0)
    .nullable()
    .describe('Response body bytes; null for a streamed answer without Content-Length.'),
  target: z.string().max(200).optional().describe('A proxied call: the connected service (docs/adr/0069).'),
  detail: AuditDetail.optional().describe(
    'A proxied call: upstreamHost, upstreamPath, upstreamStatus, upstreamLatencyUs.',
  ),
});
export type RequestAuditEvent = z.infer<typeof RequestAuditEvent>;

/**
 * A call to a connected service as the proxy handled it: the service, and the call made upstream
 * (host and path without the query string, the service's status or null when it gave none, the
 * time until its answer's head) or null when the proxy refused it first; the error code of a
 * refusal or failure. Never a credential, a token, a header, a query string or a body.
 */
export const ProxiedCall = z.object({
  service: z.string().max(100).nullable().describe('The connector named in the path; null: none matched.'),
  upstream: z
    .object({
      host: z.string().max(255),
      path: z.string().max(500),
      status: z.int().min(100).max(599).nullable(),
      latencyMs: z.number().min(0),
    })
    .nullable(),
  reason: z.string().max(200).nullable(),
});
export type ProxiedCall = z.infer<typeof ProxiedCall>;

/**
 * Something a service did on the owner's behalf, or a decision of the owner or the operator:
 * who (`actor`), what (`action`, `target`) and the outcome (`decision`, `reason`, `status`).
 */
export const ActionAuditEvent = z.object({
  kind: z.literal('action'),
  ...auditCommon,
  actor: z.object({
    type: z.enum(AUDIT_ACTOR_TYPES),
    id: z.string().max(200).nullable().describe('The agent id, the owner account id, or null.'),
  }),
  action: z.string().max(64).regex(AUDIT_ACTION_PATTERN),
  target: z.string().max(200).nullable().describe('What was acted on: a service name, a handshake id.'),
  status: z
    .int()
    .min(100)
    .max(599)
    .nullable()
    .describe('An HTTP status where one applies (an upstream answer).'),
  latencyMs: z.number().min(0).nullable(),
  detail: AuditDetail,
});
export type ActionAuditEvent = z.infer<typeof ActionAuditEvent>;

/** What travels on the AUDIT stream (`audit.events.<source>`), one per request or action. */
export const AuditEvent = z.discriminatedUnion('kind', [RequestAuditEvent, ActionAuditEvent]);
export type AuditEvent = z.infer<typeof AuditEvent>;

export const TokenRevokedEvent = z
  .object({
    accountId: z.string(),
    clientId: z.string(),
    tokenSha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .nullable()
      .describe('Hex SHA-256 of the revoked token; null: every token of the client is revoked.'),
    revokedAt: Timestamp,
  })
  .describe('Evict cached introspection results of this token (or client) now.');
export type TokenRevokedEvent = z.infer<typeof TokenRevokedEvent>;

export const DeviceEvent = z
  .object({ accountId: z.string(), clientId: z.string(), deviceId: ResourceId, at: Timestamp })
  .describe('A device was approved or revoked (events.auth.device.approved|revoked).');
export type DeviceEvent = z.infer<typeof DeviceEvent>;

export const HandshakeDecidedEvent = z.object({
  accountId: z.string(),
  handshakeId: ResourceId,
  status: z.enum(['approved', 'denied']),
  at: Timestamp,
});
export type HandshakeDecidedEvent = z.infer<typeof HandshakeDecidedEvent>;
