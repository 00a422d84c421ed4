/**
 * The auth service's core without its HTTP listener: oidc-provider on our adapter with the
 * signing keys, and the stores around it. startAuth serves it; operator commands (`pag …`) use the
 * same core on the same database, so a token the CLI mints is the service's own kind of token.
 */
import type { Logger } from '@pag/kit';
import { TokenTags } from '@pag/kit';
import type Provider from 'oidc-provider';
import { AccountStore } from './accounts/mod.ts';
import { agentClaims } from './agents/agent-claims.ts';
import { AgentStore } from './agents/agent-store.ts';
import type { AuthConfig } from './config.ts';
import { registerDeviceGrant } from './devices/device-grant.ts';
import type { PrismaClient } from './generated/prisma/client.ts';
import { loadSigningKeys } from './keys/signing-keys.ts';
import { createProvider } from './provider/create-provider.ts';
import { providerConfiguration } from './provider/provider-config.ts';
import { withRegistrationPolicy } from './provider/registration-policy.ts';
import { tagTokenIds } from './provider/token-ids.ts';
import { accountLookup } from './store/account-lookup.ts';
import { LegacyCutOver } from './store/legacy-cut-over.ts';
import type { RevokedAccess } from './store/oidc-adapter.ts';
import { createOidcAdapterFactory } from './store/oidc-adapter.ts';
import { RecentTokens } from './store/recent-tokens.ts';

export interface AuthCore {
  readonly prisma: PrismaClient;
  readonly provider: Provider;
  /** The issuer (PUBLIC_URL). */
  readonly publicUrl: string;
  /** `${publicUrl}/api/v1`: the one resource, the audience of every access token. */
  readonly apiResource: string;
  readonly accounts: AccountStore;
  readonly agents: AgentStore;
  readonly signingKeyIds: string[];
  /** Until when tokens without our prefix are looked up (docs/adr/0025); refresh() it now and then. */
  readonly legacyTokens: LegacyCutOver;
  /**
   * Drops what introspection keeps about tokens another replica (or an operator command) revoked,
   * as TokenRevokedEvent tells; this replica's own revocations do it themselves.
   */
  forgetRevoked(revoked: RevokedAccess): void;
}

export interface AuthCoreOptions {
  config: AuthConfig;
  publicUrl: string;
  prisma: PrismaClient;
  /** Told of every access token that stops working, before the revoking request answers. */
  onAccessTokensRevoked: (revoked: RevokedAccess[]) => Promise<void>;
  logger: Logger;
}

export async function createAuthCore(options: AuthCoreOptions): Promise<AuthCore> {
  const { config, publicUrl, prisma, logger } = options;
  const apiResource = `${publicUrl}/api/v1`;
  const claims = agentClaims(prisma);
  const recentTokens = new RecentTokens(config.tokenReadCacheMs);
  // Every revocation made here also drops what introspection keeps about the agent and its tokens.
  const onAccessTokensRevoked = async (revoked: RevokedAccess[]) => {
    for (const item of revoked) {
      claims.forget(item.accountId, item.clientId);
      recentTokens.forgetRevoked(item);
    }
    await options.onAccessTokensRevoked(revoked);
  };
  const jwks = await loadSigningKeys({ prisma, keyEncryptionKey: config.keyEncryptionKey });
  const tokenTags = new TokenTags(config.tokenTagKeys);
  const legacyTokens = await LegacyCutOver.load(prisma, config.legacyTokensUntil);
  const adapter = createOidcAdapterFactory({
    prisma,
    tokenHashKey: config.tokenHashKey,
    onAccessTokensRevoked,
    recentTokens,
    tokenTags,
    legacy: legacyTokens,
  });
  const configuration = providerConfiguration({
    config,
    apiResource,
    // Dynamic registration goes through the registration policy; the agents' own clients do not.
    adapter: withRegistrationPolicy(adapter),
    jwks,
    findAccount: accountLookup(prisma),
  });
  const provider = createProvider(publicUrl, configuration, logger);
  tagTokenIds(provider, tokenTags);
  if (legacyTokens.open())
    logger.info(
      { legacyTokensUntil: legacyTokens.until },
      'tokens issued before the pag_ prefix are accepted until then (LEGACY_TOKENS_UNTIL ends it earlier)',
    );
  const agents = new AgentStore({
    prisma,
    provider,
    adapter,
    apiResource,
    onRevoked: onAccessTokensRevoked,
  });
  provider.use(claims.middleware);
  registerDeviceGrant(provider, { prisma, agents });
  return {
    prisma,
    provider,
    publicUrl,
    apiResource,
    accounts: new AccountStore(prisma),
    agents,
    signingKeyIds: jwks.keys.map((key) => key.kid),
    legacyTokens,
    forgetRevoked: (revoked) => {
      claims.forget(revoked.accountId, revoked.clientId);
      recentTokens.forgetRevoked(revoked);
    },
  };
}
