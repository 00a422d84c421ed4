/**
 * Bodies of the auth-facing endpoints: the handshake (access request without a token), device
 * registration, and the calling token's capabilities. Request bodies are strict: an unknown
 * field is a 400 naming it, so a typo never silently drops what the agent meant to send.
 */
import { z } from 'zod';
import { HANDSHAKE_SCOPES } from '../scopes/scope-catalogue.ts';
import { displayName, plainText, ResourceId, storableString, Timestamp } from './common.ts';

export const HANDSHAKE_STATUSES = ['pending', 'approved', 'denied'] as const;
export type HandshakeStatusValue = (typeof HANDSHAKE_STATUSES)[number];

/**
 * How often an agent polls a handshake's status, in seconds: the status says it (`interval`) and
 * the gateway sends it as Retry-After (the route's pollIntervalSeconds). An owner decides in
 * seconds or hours, so polling faster gains nothing.
 */
export const HANDSHAKE_POLL_INTERVAL_SECONDS = 5;

/**
 * How often a device waiting for its owner signs a new assertion, in seconds: the token
 * endpoint's 403 `device_pending_approval` says it (`interval`, and Retry-After).
 */
export const DEVICE_POLL_INTERVAL_SECONDS = 5;

/**
 * The request header carrying the agent's proof when it collects its token (docs/adr/0058). A
 * header, not a query parameter: query strings land in proxies' and ingresses' access logs.
 */
export const HANDSHAKE_VERIFIER_HEADER = 'handshake-verifier';

/** How the token of an approved handshake reaches the agent. */
export const TOKEN_DELIVERIES = ['pickup', 'owner'] as const;
export type TokenDelivery = (typeof TOKEN_DELIVERIES)[number];

/** base64url without padding of 32 bytes (a SHA-256): 43 characters (RFC 7636 §4.2). */
const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** A code verifier (RFC 7636 §4.1): 43 to 128 unreserved characters. */
export const CodeVerifier = z
  .string()
  .regex(/^[A-Za-z0-9._~-]{43,128}$/, '43 to 128 characters among letters, digits and - . _ ~ (RFC 7636).');

export const HandshakeCreateRequest = z
  .object({
    agentId: z
      .string()
      .min(1)
      .max(128)
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9._:@-]*$/,
        'Letters, digits and . _ : @ -, starting with a letter or digit.',
      )
      .describe('Chosen by the agent, unique per agent; the owner sees it when deciding.')
      .meta({ examples: ['claude-desktop@alice-laptop'] }),
    requestedScopes: z
      .array(z.enum(HANDSHAKE_SCOPES))
      .min(1)
      .max(HANDSHAKE_SCOPES.length)
      .refine((scopes) => new Set(scopes).size === scopes.length, { message: 'Each scope may appear once.' })
      .describe(
        "What the agent asks for: read (read-only access to knowledge and services), professional (the owner's GitHub user, Microsoft 365 and Slack profiles), availability (Google Calendar free/busy and the Microsoft 365 schedule, not the events).",
      )
      .meta({ uniqueItems: true, examples: [['read', 'availability']] }),
    message: plainText(500)
      .describe('A short self-description shown to the owner: who you are and why you need access.')
      .meta({ examples: ['Claude on Alice’s laptop; wants to read her calendar to schedule meetings.'] }),
    codeChallenge: z
      .string()
      .regex(CODE_CHALLENGE, 'The base64url SHA-256 of your code verifier, without padding: 43 characters.')
      .optional()
      .describe(
        'Optional proof (PKCE-style, RFC 7636): BASE64URL(SHA-256(code verifier)). Keep the verifier; once the owner approves, GET the status with the header Handshake-Verifier: <verifier> to collect your token yourself, once. Without it, the owner shares the token with you.',
      )
      .meta({ examples: ['E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'] }),
    codeChallengeMethod: z
      .enum(['S256'])
      .optional()
      .describe('Required with codeChallenge; S256 is the only method (plain is refused).'),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.codeChallenge !== undefined && body.codeChallengeMethod === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['codeChallengeMethod'],
        message: 'Required with codeChallenge: send "S256".',
      });
    if (body.codeChallenge === undefined && body.codeChallengeMethod !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['codeChallenge'],
        message: 'Required with codeChallengeMethod.',
      });
  })
  .describe(
    'Asks the owner for access when the agent has no usable token. With codeChallenge, the agent collects the token itself once approved; without, the owner shares it. Limited per client address (30 per hour to one owner) and per agentId from one address (3 pending at once, 5 per hour): over a limit, 429 RATE_LIMITED with Retry-After.',
  );
export type HandshakeCreateRequest = z.infer<typeof HandshakeCreateRequest>;

const HandshakeId = ResourceId.describe('Identifier of the handshake; poll its status with it.').meta({
  examples: ['hs_7Yb2kQ9xWm4Lp3Rt'],
});

export const HandshakeCreated = z
  .object({
    handshakeId: HandshakeId,
    status: z.literal('pending'),
    claimUrl: z
      .url()
      .describe(
        'Show this link to your human: the owner opens it to claim and decide the request (needed when the gateway has several owners).',
      ),
    tokenDelivery: z
      .enum(TOKEN_DELIVERIES)
      .describe(
        'pickup: you gave a codeChallenge; once approved, GET the status with the header Handshake-Verifier to collect your token (once). owner: the owner shares the token with you out of band.',
      ),
    interval: z.int().min(1).describe('Seconds to wait between two polls of the status.'),
  })
  .describe('The handshake was recorded and waits for the owner.');
export type HandshakeCreated = z.infer<typeof HandshakeCreated>;

/** The token an agent collects from an approved handshake it proved to have created. */
export const HandshakeToken = z
  .object({
    accessToken: z.string().describe('Send it as Authorization: Bearer <accessToken>. Shown this once.'),
    tokenType: z.literal('Bearer'),
    agentId: z.string().describe('The agent the owner made for you.'),
    scopes: z.array(z.string()).describe('The scopes granted: those requested or fewer.'),
    dailyLimit: z.int().min(0).nullable().describe('Requests per UTC day; null: no limit.'),
    monthlyLimit: z.int().min(0).nullable().describe('Requests per UTC month; null: no limit.'),
    expiresAt: Timestamp.describe('When the token stops working.'),
  })
  .describe('Your token, answered once to the Handshake-Verifier that matches the codeChallenge.');
export type HandshakeToken = z.infer<typeof HandshakeToken>;

export const HandshakeStatus = z
  .object({
    handshakeId: HandshakeId,
    status: z
      .enum(HANDSHAKE_STATUSES)
      .describe(
        'approved: with a codeChallenge, collect your token by sending Handshake-Verifier; without, the owner shares it with you out of band.',
      ),
    interval: z
      .int()
      .min(1)
      .optional()
      .describe('While pending: seconds to wait before polling again (also sent as Retry-After).'),
    token: HandshakeToken.optional().describe(
      'Present once: in the first answer to a Handshake-Verifier matching the codeChallenge after approval.',
    ),
    tokenCollected: z
      .boolean()
      .optional()
      .describe('true: the token was collected with the verifier; it is never answered again.'),
  })
  .describe('Where the handshake stands. It follows the token: revoking the token makes it denied.');
export type HandshakeStatus = z.infer<typeof HandshakeStatus>;

/** 32 bytes, base64url without padding: 43 characters, the last carrying 2 zero bits. */
const Ed25519RawKey = z
  .string()
  .regex(/^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/, 'A 32-byte Ed25519 public key, base64url without padding.')
  .meta({ examples: ['11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo'] });

const Ed25519Jwk = z
  .object({
    kty: z.literal('OKP'),
    crv: z.literal('Ed25519'),
    x: Ed25519RawKey,
    kid: storableString().max(128).optional(),
    alg: z.literal('EdDSA').optional(),
    use: z.literal('sig').optional(),
  })
  .strict()
  .describe('A public JWK (RFC 8037). A private key member such as "d" is refused.');

export const DeviceRegisterRequest = z
  .object({
    publicKey: z
      .union([Ed25519RawKey, Ed25519Jwk])
      .describe('The device public key: raw base64url (32 bytes) or a public JWK.'),
    deviceName: displayName(100)
      .describe('Shown to the owner in the approval queue.')
      .meta({ examples: ['alice-laptop (MCP)'] }),
  })
  .strict()
  .describe(
    'Registers an Ed25519 device key. The device waits for the owner to claim and approve it; until then its calls return 403.',
  );
export type DeviceRegisterRequest = z.infer<typeof DeviceRegisterRequest>;

export const DeviceRegistered = z
  .object({
    deviceId: ResourceId,
    status: z.literal('pending'),
    userCode: z
      .string()
      .regex(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/)
      .describe('Show it to the owner: they claim the device with it within 24 hours (claimUrl carries it).')
      .meta({ examples: ['WDJB-MJHT'] }),
    claimUrl: z.url().describe('Where the owner claims and approves the device.'),
    fingerprint: z
      .string()
      .regex(/^[A-Za-z0-9_-]{43}$/)
      .describe(
        'SHA-256 of the raw public key, base64url. The owner sees it when claiming; show it to them to compare.',
      )
      .meta({ examples: ['p1J3eV9M0Qm5Yh1Zq7o3xkGz0JdC2WvA9nE4sLr8TbU'] }),
  })
  .describe('The device is registered and awaits approval.');
export type DeviceRegistered = z.infer<typeof DeviceRegistered>;

export const TOKEN_KINDS = ['oauth', 'dashboard', 'handshake', 'device'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];
export const PLANS = ['free', 'pro', 'heavy'] as const;
export type Plan = (typeof PLANS)[number];

/** Whether the service answering an endpoint runs now (live discovery over the bus, docs/adr/0062). */
export const Availability = z.object({
  available: z.boolean().describe('Whether the service that answers it is running now.'),
  reason: z
    .string()
    .optional()
    .describe('Why it is not available, when it is not.')
    .meta({ examples: ['The brain service is not running.'] }),
});
export type Availability = z.infer<typeof Availability>;

/** One endpoint with whether a set of scopes allows it (EndpointAccess without the availability). */
export const EndpointGrant = z
  .object({
    id: z.string().describe('The operationId.'),
    method: z.string(),
    path: z.string(),
    requiredScope: z.string().nullable().describe('null: any valid token; templates name path parameters.'),
    allowed: z.boolean().describe('Whether this token may call it (for templates: with some service).'),
  })
  .describe('One endpoint with whether the scopes allow it.');
export type EndpointGrant = z.infer<typeof EndpointGrant>;

export const EndpointAccess = EndpointGrant.extend(Availability.shape).describe(
  'One endpoint as seen by the calling token, and whether its service runs now.',
);
export type EndpointAccess = z.infer<typeof EndpointAccess>;

const UsageWindow = z.object({ limit: z.int().min(0), used: z.int().min(0), resetsAt: Timestamp }).nullable();

export const TokenCapabilities = z
  .object({
    clientId: z.string().describe('The OAuth client the token was issued to.'),
    agent: z
      .object({ id: z.string(), name: z.string() })
      .nullable()
      .describe('The agent the token belongs to (null: a token from before agents were recorded).'),
    tokenKind: z.enum(TOKEN_KINDS),
    scopes: z
      .array(z.string())
      .describe('The scopes granted, as issued.')
      .meta({ examples: [['read', 'chat']] }),
    expanded: z
      .array(z.string())
      .describe('Every scope they imply; services as patterns.')
      .meta({ examples: [['knowledge', 'chat', 'read', 'services:read', 'services:*:read']] }),
    expiresAt: Timestamp.nullable().describe('null: valid until revoked.'),
    plan: z.enum(PLANS),
    limits: z.object({ daily: UsageWindow, monthly: UsageWindow }).describe('null: no limit of that period.'),
    endpoints: z.array(EndpointAccess),
  })
  .describe('What the calling token may do.');
export type TokenCapabilities = z.infer<typeof TokenCapabilities>;

/**
 * What the auth service adds to an active RFC 7662 introspection answer (beside `account_id`):
 * the owner's plan and the agent the token belongs to, with its limits. Resource services read
 * them with this schema; a member that is absent means "not known" (e.g. a token of an agent that
 * no longer exists), never "unlimited" by accident of a typo.
 */
export const AgentIntrospectionClaims = z.object({
  plan: z.enum(PLANS).optional(),
  token_kind: z.enum(TOKEN_KINDS).optional(),
  agent_id: z.string().optional(),
  agent_name: z.string().optional(),
  /** Requests per UTC day; null: no limit. */
  limit_daily: z.int().min(0).nullable().optional(),
  /** Requests per UTC month; null: no limit. */
  limit_monthly: z.int().min(0).nullable().optional(),
});
export type AgentIntrospectionClaims = z.infer<typeof AgentIntrospectionClaims>;

/** gateway.usage.get: the auth service's dashboard asks the gateway what the owner's agents used. */
export const UsageQuery = z.object({
  accountId: z.string().min(1),
  /** The agents, by their OAuth client id (what the usage counters are keyed by). */
  clientIds: z.array(z.string().min(1)).max(1000),
});
export type UsageQuery = z.infer<typeof UsageQuery>;

export const AgentUsage = z.object({
  clientId: z.string(),
  /** Requests in the current UTC day and month. */
  today: z.int().min(0),
  thisMonth: z.int().min(0),
  lastUsedAt: Timestamp.nullable(),
});
export type AgentUsage = z.infer<typeof AgentUsage>;

/** One entry per asked client id, in the order asked (zeros for an agent that never called). */
export const UsageReport = z.object({ agents: z.array(AgentUsage) });
export type UsageReport = z.infer<typeof UsageReport>;

/** Asked on auth.account.get: whose account (the caller's pag-account-id header decides nothing here). */
export const OwnerAccountQuery = z.object({ accountId: z.uuid() });
export type OwnerAccountQuery = z.infer<typeof OwnerAccountQuery>;

/** The reply of auth.account.get: an owner account's public facts (never its password hash). */
export const OwnerAccount = z.object({
  accountId: z.uuid(),
  email: z.string(),
  plan: z.enum(PLANS),
  createdAt: Timestamp,
});
export type OwnerAccount = z.infer<typeof OwnerAccount>;
