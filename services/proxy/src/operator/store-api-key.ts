/**
 * The proxy's data for operator commands (`pnpm pag …`), without an HTTP listener: above all
 * `storeApiKeyConnection`, which connects a service for an owner with a credential the operator
 * supplies, until the OAuth connect flow exists. Needs DATABASE_URL (migrated) and the
 * deployment's vault key ring (loadVaultKeyRing), so running replicas can decrypt what it stores.
 */
import type { ConnectedService, VaultTokenMetadata } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import { createPrismaClient } from '@pag/kit';
import { resolveConnectors } from '../connectors/catalogue.ts';
import { proxyDatabase } from '../database.ts';
import type { ApiKeyConnectionInput } from '../domain/api-key-input.ts';
import { parseApiKeyConnection } from '../domain/api-key-input.ts';
import { PrismaClient } from '../generated/prisma/client.ts';
import { VaultStore } from '../store/vault-store.ts';
import type { VaultKeyRing } from '../vault/key-ring.ts';
import type { RotationReport, VaultKeyStatus } from './rotate-vault-key.ts';
import { rotateVaultKey, vaultKeyStatus } from './rotate-vault-key.ts';

export interface OpenProxyStoreOptions {
  databaseUrl: string;
  /** The vault's keys (loadVaultKeyRing reads and checks them); new values go under the active one. */
  keyRing: VaultKeyRing;
  logger?: Logger;
}

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
  return {
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
