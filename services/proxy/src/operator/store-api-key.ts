/**
 * The proxy's data for operator commands (`pnpm pag …`), without an HTTP listener: above all
 * `storeApiKeyConnection`, which connects a service for an owner with a credential the operator
 * supplies, until the OAuth connect flow exists. Needs DATABASE_URL (migrated) and the
 * deployment's vault key ring (loadVaultKeyRing), so running replicas can decrypt what it stores.
 */
import type {
  ConnectDone,
  ConnectedService,
  OwnerConnectorInput,
  OwnerSettings,
  VaultTokenMetadata,
} from '@pag/contracts';
import { invalidRequest, OwnerConnectorFields } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import { createPrismaClient } from '@pag/kit';
import type { OAuthClient } from '../connectors/catalogue.ts';
import { resolveConnectors } from '../connectors/catalogue.ts';
import { ConnectorRegistry } from '../connectors/registry.ts';
import { proxyDatabase } from '../database.ts';
import type { ApiKeyConnectionInput } from '../domain/api-key-input.ts';
import { parseApiKeyConnection } from '../domain/api-key-input.ts';
import { PrismaClient } from '../generated/prisma/client.ts';
import type { OwnerSettingsDeps } from '../oauth/owner-settings.ts';
import {
  removeOwnerClient,
  removeOwnerConnector,
  setOwnerClient,
  setOwnerConnector,
} from '../oauth/owner-settings.ts';
import { ConnectStore } from '../store/connect-store.ts';
import { VaultStore } from '../store/vault-store.ts';
import type { VaultKeyRing } from '../vault/key-ring.ts';
import type { RotationReport, VaultKeyStatus } from './rotate-vault-key.ts';
import { rotateVaultKey, vaultKeyStatus } from './rotate-vault-key.ts';

export interface OpenProxyStoreOptions {
  databaseUrl: string;
  /** The vault's keys (loadVaultKeyRing reads and checks them); new values go under the active one. */
  keyRing: VaultKeyRing;
  logger?: Logger;
  /** CONNECTOR_ALLOW_LOOPBACK: an owner's connector may use http on loopback (tests only). */
  allowLoopback?: boolean;
}

/** How long the operator's requests to a provider may take (revocation when a connector is deleted). */
const PROVIDER_TIMEOUT_MS = 8_000;

export interface StoredConnection {
  service: ConnectedService;
  /** The stored credential, described (its value is never returned). */
  token: VaultTokenMetadata;
}

export interface ProxyStore extends AsyncDisposable {
  /**
   * Connects `service` for the account with an API key (or personal access token) stored
   * encrypted in the vault under `label`; the same label again replaces the key. Throws
   * AppError INVALID_REQUEST naming each bad field (never quoting the value).
   */
  storeApiKeyConnection(input: ApiKeyConnectionInput): Promise<StoredConnection>;
  listConnections(accountId: string): Promise<ConnectedService[]>;
  listTokens(accountId: string): Promise<VaultTokenMetadata[]>;
  /** Tokens per vault key id, and which keys of the ring nothing needs any more. */
  keyStatus(): Promise<VaultKeyStatus>;
  /** Rewraps every token not under the ring's active key, in batches (rotate-vault-key.ts). */
  rotateKey(options?: {
    batchSize?: number;
    onBatch?: (rewrapped: number) => void | Promise<void>;
  }): Promise<RotationReport>;
  /** The owner's own OAuth client for a connector of the catalogue (docs/adr/0068). */
  setOwnerClient(accountId: string, service: string, client: OAuthClient): Promise<ConnectDone>;
  removeOwnerClient(accountId: string, service: string): Promise<ConnectDone>;
  /** The owner's own generic OAuth 2.0 connector, created or replaced (the dashboard's form's fields). */
  setOwnerConnector(accountId: string, fields: OwnerConnectorInput): Promise<ConnectDone>;
  /** Deletes it: revoked at the provider where it offers revocation, its tokens forgotten. */
  removeOwnerConnector(accountId: string, service: string): Promise<ConnectDone>;
  /** What the owner entered, never a secret. */
  ownerSettings(accountId: string): Promise<OwnerSettings>;
  close(): Promise<void>;
}

export function openProxyStore(options: OpenProxyStoreOptions): ProxyStore {
  const connectors = resolveConnectors();
  const prisma = createPrismaClient(PrismaClient, {
    databaseUrl: options.databaseUrl,
    schema: proxyDatabase.schema,
    logger: options.logger,
  });
  const store = new VaultStore({ prisma, keyRing: options.keyRing, connectors, logger: options.logger });
  const close = async () => {
    await store.close();
    await prisma.$disconnect();
  };
  const settings: OwnerSettingsDeps = {
    base: connectors,
    owners: store.owners,
    allowLoopback: options.allowLoopback ?? false,
  };
  // Not following changes (setLive never called): every account's connectors are read afresh.
  const registry = new ConnectorRegistry(connectors, store.owners, { allowLoopback: settings.allowLoopback });
  return {
    setOwnerClient: (accountId, service, client) => setOwnerClient(settings, accountId, service, client),
    removeOwnerClient: (accountId, service) => removeOwnerClient(settings, accountId, service),
    setOwnerConnector: async (accountId, input) => {
      const fields = OwnerConnectorFields.safeParse(input);
      if (!fields.success) throw invalidRequest('connector', fields.error);
      return setOwnerConnector(settings, accountId, fields.data);
    },
    removeOwnerConnector: async (accountId, service) =>
      removeOwnerConnector(
        settings,
        {
          connectors: await registry.forAccount(accountId),
          store,
          connect: new ConnectStore({ prisma, keyRing: options.keyRing }),
          connectStateTtlMs: 0,
          timeoutMs: PROVIDER_TIMEOUT_MS,
        },
        accountId,
        service,
      ),
    ownerSettings: (accountId) => store.owners.settingsOf(accountId),
    storeApiKeyConnection: async (input) =>
      store.storeApiKeyConnection(parseApiKeyConnection(input, connectors)),
    listConnections: (accountId) => store.listConnections(accountId),
    listTokens: (accountId) => store.listTokens(accountId),
    keyStatus: () => vaultKeyStatus(store, options.keyRing),
    rotateKey: (rotation) => rotateVaultKey(store, options.keyRing, rotation),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** One credential stored in one go (opens the database, stores, closes): what `pag` calls. */
export async function storeApiKeyConnection(
  input: ApiKeyConnectionInput,
  options: OpenProxyStoreOptions,
): Promise<StoredConnection> {
  await using store = openProxyStore(options);
  // Awaited here: the store closes when this function returns.
  return await store.storeApiKeyConnection(input);
}
