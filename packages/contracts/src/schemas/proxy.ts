/**
 * Bodies of the proxy's listing endpoints: connected services, vault tokens (metadata only, never
 * a secret) and the connector catalogue. The proxied calls themselves carry the third-party
 * service's own bodies and have no schema here. Fields are our decision; the spec shows none.
 */
import { z } from 'zod';
import { ResourceId, ServiceName, Timestamp } from './common.ts';

export const ConnectedService = z
  .object({
    name: ServiceName,
    displayName: z.string().meta({ examples: ['GitHub'] }),
    status: z
      .enum(['connected', 'expired', 'error', 'needs_reconnect'])
      .describe(
        'expired, error or needs_reconnect (the provider refused to refresh its token): the owner must reconnect it before calls succeed.',
      ),
    health: z
      .enum(['healthy', 'needs_reconnect'])
      .describe(
        'healthy: calls can succeed; needs_reconnect: the owner must reconnect it (dashboard, /dashboard/services).',
      ),
    connectedAt: Timestamp,
  })
  .describe('A third-party account the owner connected.');
export type ConnectedService = z.infer<typeof ConnectedService>;

export const ServiceList = z.object({ services: z.array(ConnectedService) });
export type ServiceList = z.infer<typeof ServiceList>;

export const VaultTokenMetadata = z
  .object({
    id: ResourceId,
    service: ServiceName,
    label: z.string(),
    kind: z
      .enum(['oauth2', 'oauth2_refresh', 'api_key'])
      .describe('oauth2: an access token; oauth2_refresh: the refresh token that renews it; api_key: a key.'),
    scopes: z.array(z.string()).describe('Scopes granted by the third party.'),
    keyId: z
      .string()
      .nullable()
      .describe(
        'The id of the vault key its data key is wrapped under; null: stored before key ids, under the one key of then.',
      )
      .meta({ examples: ['k2'] }),
    connectionStatus: ConnectedService.shape.status.describe("The state of the token's connection."),
    createdAt: Timestamp,
    expiresAt: Timestamp.nullable(),
    lastUsedAt: Timestamp.nullable(),
  })
  .describe('A stored credential, described; its value never leaves the vault.');
export type VaultTokenMetadata = z.infer<typeof VaultTokenMetadata>;

export const VaultTokenList = z.object({ tokens: z.array(VaultTokenMetadata) });
export type VaultTokenList = z.infer<typeof VaultTokenList>;

export const Connector = z
  .object({
    name: ServiceName,
    displayName: z.string(),
    authType: z.enum(['oauth2', 'api_key']),
    connected: z.boolean(),
    resources: z
      .array(ServiceName)
      .describe('Resource names usable in sub-scopes services:{name}:{resource}:read|write.')
      .meta({ examples: [['profile', 'availability', 'events']] }),
    readAccess: z
      .string()
      .describe(
        'What read access (read, services:read, services:{name}:read) lets an agent do here; anything else needs write.',
      ),
    connection: z
      .enum(['not_connected', 'healthy', 'needs_reconnect'])
      .describe("The caller's owner's connection to it."),
    canConnect: z
      .boolean()
      .describe(
        'Whether the owner can connect it now: an API key always; OAuth only when this deployment has a client for it.',
      ),
    authorizationOrigin: z
      .string()
      .nullable()
      .describe(
        "OAuth: the origin of the provider's authorization endpoint, where connecting sends the owner's browser.",
      ),
    client: z
      .enum(['owner', 'deployment'])
      .nullable()
      .describe(
        "OAuth: whose client connects it: the owner's own (entered on /dashboard/services, it wins) or the deployment's; null: none.",
      ),
    owned: z
      .boolean()
      .describe(
        "The owner's own generic OAuth 2.0 connector (defined on /dashboard/services), seen by that owner only.",
      ),
  })
  .describe('A kind of third-party service the owner can connect.');
export type Connector = z.infer<typeof Connector>;

export const ConnectorList = z.object({ connectors: z.array(Connector) });
export type ConnectorList = z.infer<typeof ConnectorList>;

// The owner's connect flow, asked by the auth service's dashboard (/dashboard/services) --------

const Account = z.uuid();

/** What the state of a connect attempt is bound to besides the account: the owner's session. */
const SessionBinding = z
  .string()
  .regex(/^[A-Za-z0-9_-]{43}$/)
  .describe(
    "SHA-256 (base64url) of the owner's dashboard session: the callback must come from the same session.",
  );

export const OwnerConnectors = z.object({ accountId: Account });
export type OwnerConnectors = z.infer<typeof OwnerConnectors>;

export const ConnectStart = z.object({
  accountId: Account,
  service: ServiceName,
  sessionBinding: SessionBinding,
  /** The dashboard's callback (`${PUBLIC_URL}/dashboard/services/callback`). */
  redirectUri: z.url(),
});
export type ConnectStart = z.infer<typeof ConnectStart>;

export const ConnectStarted = z.object({
  /** Where the owner's browser goes next: the provider's authorization endpoint. */
  authorizationUrl: z.url(),
});
export type ConnectStarted = z.infer<typeof ConnectStarted>;

export const ConnectFinish = z.object({
  accountId: Account,
  sessionBinding: SessionBinding,
  state: z.string().min(1).max(200),
  /** The provider's answer: a code, or its error (access_denied, …). */
  code: z.string().min(1).max(4000).nullable(),
  error: z.string().max(200).nullable(),
});
export type ConnectFinish = z.infer<typeof ConnectFinish>;

export const ConnectApiKey = z.object({
  accountId: Account,
  service: ServiceName,
  key: z.string().min(1).max(4000),
});
export type ConnectApiKey = z.infer<typeof ConnectApiKey>;

export const Disconnect = z.object({ accountId: Account, service: ServiceName });
export type Disconnect = z.infer<typeof Disconnect>;

export const ConnectDone = z.object({
  service: ServiceName,
  displayName: z.string(),
  /** Disconnect: whether the provider confirmed the revocation (false: it offers none, or failed). */
  revoked: z.boolean().optional(),
});
export type ConnectDone = z.infer<typeof ConnectDone>;

// The owner's own OAuth clients and connectors (docs/adr/0068) --------------------------------------

/** An owner's OAuth client for a connector of the catalogue or the deployment. */
export const OwnerClientSet = z.object({
  accountId: Account,
  service: ServiceName,
  clientId: z.string().min(1).max(500),
  clientSecret: z.string().min(1).max(2000),
});
export type OwnerClientSet = z.infer<typeof OwnerClientSet>;

/**
 * An owner's generic OAuth 2.0 connector, as the form (and `pag connector custom set --file`) gives
 * it. The proxy builds a provider definition from it and validates that with the catalogue's schema
 * (providerSchema); the fields here are only bounded. Every call reads with GET and HEAD only.
 */
export const OwnerConnectorFields = z.object({
  name: z.string().min(1).max(100),
  displayName: z.string().min(1).max(100),
  authorizationUrl: z.string().max(2000),
  tokenUrl: z.string().max(2000),
  revocationUrl: z.string().max(2000).nullable().default(null),
  apiBaseUrl: z.string().max(2000),
  scopes: z.array(z.string().min(1).max(200)).max(50).default([]),
  clientAuth: z.enum(['client_secret_basic', 'client_secret_post']),
  pkce: z.boolean(),
  clientId: z.string().min(1).max(500),
  /** Omitted when editing: the stored secret stays. */
  clientSecret: z.string().min(1).max(2000).optional(),
});
export type OwnerConnectorFields = z.infer<typeof OwnerConnectorFields>;
export type OwnerConnectorInput = z.input<typeof OwnerConnectorFields>;

export const OwnerConnectorSet = z.object({ accountId: Account, connector: OwnerConnectorFields });
export type OwnerConnectorSet = z.infer<typeof OwnerConnectorSet>;

/** What the owner entered, for the dashboard's forms: never a secret. */
export const OwnerSettings = z.object({
  clients: z.array(z.object({ service: ServiceName, clientId: z.string() })),
  connectors: z.array(OwnerConnectorFields.omit({ clientSecret: true })),
});
export type OwnerSettings = z.infer<typeof OwnerSettings>;
