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
      .enum(['connected', 'expired', 'error'])
      .describe('expired or error: the owner must reconnect it before calls succeed.'),
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
    kind: z.enum(['oauth2', 'api_key']),
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
  })
  .describe('A kind of third-party service the owner can connect.');
export type Connector = z.infer<typeof Connector>;

export const ConnectorList = z.object({ connectors: z.array(Connector) });
export type ConnectorList = z.infer<typeof ConnectorList>;
