/**
 * The auth service's data for operator commands (`pnpm pag …`): the same core as the running
 * service (accounts, agents, oidc-provider's models on the same adapter and keys), without an
 * HTTP listener.
 */
import type { Logger } from '@pag/kit';
import { createPrismaClient } from '@pag/kit';
import type { AuthConfig } from '../config.ts';
import type { AuthCore } from '../core.ts';
import { createAuthCore } from '../core.ts';
import { authDatabase } from '../database.ts';
import { PrismaClient } from '../generated/prisma/client.ts';
import type { RotationResult } from '../keys/signing-keys.ts';
import { rotateSigningKeys } from '../keys/signing-keys.ts';
import type { RevokedAccess } from '../store/oidc-adapter.ts';
import type { RegisteredClient } from '../store/registered-clients.ts';
import { listRegisteredClients } from '../store/registered-clients.ts';
import { notifyRevocations } from '../store/revocation-relay.ts';

export interface AuthStore extends AuthCore, AsyncDisposable {
  /** Adds a signing key and retires the current ones; replicas sign with it from their next start. */
  rotateSigningKeys(): Promise<RotationResult>;
  /** The clients registered through RFC 7591, oldest first. */
  listClients(): Promise<RegisteredClient[]>;
}

export interface OpenAuthStoreOptions {
  config: AuthConfig;
  /** PUBLIC_URL of the deployment the data belongs to (the issuer, the tokens' audience). */
  publicUrl: string;
  logger: Logger;
  /** Told of tokens a command revoked; default: NOTIFY, which running auth services relay to their bus. */
  onAccessTokensRevoked?: (revoked: RevokedAccess[]) => Promise<void>;
}

export async function openAuthStore(options: OpenAuthStoreOptions): Promise<AuthStore> {
  const { config, logger } = options;
  const prisma = createPrismaClient(PrismaClient, {
    databaseUrl: config.databaseUrl,
    schema: authDatabase.schema,
    logger,
  });
  try {
    const core = await createAuthCore({
      config,
      publicUrl: options.publicUrl,
      prisma,
      // Running services learn of the command's revocations through the database (revocation-relay.ts).
      onAccessTokensRevoked: options.onAccessTokensRevoked ?? notifyRevocations(prisma),
      logger,
    });
    return {
      ...core,
      rotateSigningKeys: () => rotateSigningKeys({ prisma, keyEncryptionKey: config.keyEncryptionKey }),
      listClients: () => listRegisteredClients(prisma),
      [Symbol.asyncDispose]: () => prisma.$disconnect(),
    };
  } catch (error) {
    await prisma.$disconnect();
    throw error;
  }
}
