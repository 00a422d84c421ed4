/**
 * The auth service's composition root: the one place its stores are built, each once, on one
 * database client, with the event publisher their decisions go to, and oidc-provider on our
 * adapter with the signing keys. startAuth (service.ts) serves it; operator commands (`pag …`,
 * openAuthStore) open the same core on the same database, so a token the CLI mints is the
 * service's own kind of token and a decision the CLI takes publishes the same events as the
 * dashboard's (docs/adr/0033).
 */
import type { Logger, PurgeTask } from '@pag/kit';
import { TokenTags } from '@pag/kit';
import type Provider from 'oidc-provider';
import { agentClaimsMiddleware } from './agents/agent-claims.ts';
import type { AuthConfig } from './config.ts';
import { registerDeviceGrant } from './devices/device-grant.ts';
import type { AuthEvents, RevokedAccess } from './events/auth-events.ts';
import { ClientDocuments, withClientDocuments } from './provider/client-documents.ts';
import { createProvider } from './provider/create-provider.ts';
import { providerConfiguration } from './provider/provider-config.ts';
import { withRegistrationPolicy } from './provider/registration-policy.ts';
import { tagTokenIds } from './provider/token-ids.ts';
import { accountLookup } from './store/account-lookup.ts';
import { AccountStore } from './store/account-store.ts';
import { agentClaimRows } from './store/agent-claim-rows.ts';
import { AgentStore } from './store/agent-store.ts';
import { AuditOutbox } from './store/audit-outbox.ts';
import type { AuthDatabase } from './store/auth-database.ts';
import { openAuthDatabase } from './store/auth-database.ts';
import { DeviceAssertions } from './store/device-assertions.ts';
import { DeviceRegistrations } from './store/device-registration.ts';
import { DeviceStore } from './store/device-store.ts';
import { notifyEvents } from './store/event-relay.ts';
import { HandshakeStore } from './store/handshake-store.ts';
import { LegacyCutOver } from './store/legacy-cut-over.ts';
import { createOidcAdapterFactory } from './store/oidc-adapter.ts';
import { purgeExpiredPayloads } from './store/purge-job.ts';
import { RecentTokens } from './store/recent-tokens.ts';
import type { RegisteredClient } from './store/registered-clients.ts';
import { listRegisteredClients } from './store/registered-clients.ts';
import type { RotationResult } from './store/signing-keys.ts';
import { loadSigningKeys, rotateSigningKeys } from './store/signing-keys.ts';

export interface AuthCore extends AsyncDisposable {
  readonly provider: Provider;
  /** The issuer (PUBLIC_URL). */
  readonly publicUrl: string;
  /** `${publicUrl}/api/v1`: the one resource, the audience of every access token. */
  readonly apiResource: string;
  /** Owner accounts and their login throttle. */
  readonly accounts: AccountStore;
  /** Agents and their tokens; revocations publish events.auth.token.revoked. */
  readonly agents: AgentStore;
  /** Handshakes, agent and owner side; decisions publish events.auth.handshake.decided. */
  readonly handshakes: HandshakeStore;
  /** The owner's side of devices; approvals and revocations publish events.auth.device.*. */
  readonly devices: DeviceStore;
  /** The anonymous side of devices: registration (auth.device.register) and its purge. */
  readonly deviceRegistrations: DeviceRegistrations;
  /** Decisions' audit events waiting to be published (the running service relays them). */
  readonly auditOutbox: AuditOutbox;
  readonly signingKeyIds: string[];
  /** Until when tokens without our prefix are looked up (docs/adr/0025); refresh() it now and then. */
  readonly legacyTokens: LegacyCutOver;
  /** What the service's purge job runs every few minutes: expired records and login counters. */
  readonly purgeTasks: PurgeTask[];
  /**
   * Drops what introspection keeps about tokens another replica (or an operator command) revoked,
   * as TokenRevokedEvent tells; this replica's own revocations do it themselves.
   */
  forgetRevoked(revoked: RevokedAccess): void;
  /** Adds a signing key and retires the current ones; replicas sign with it from their next start. */
  rotateSigningKeys(): Promise<RotationResult>;
  /** The clients registered through RFC 7591, oldest first. */
  listClients(): Promise<RegisteredClient[]>;
  /** Disconnects the database; the caller has stopped serving first. */
  close(): Promise<void>;
}

export interface AuthCoreOptions {
  config: AuthConfig;
  publicUrl: string;
  /**
   * Where the events of every decision go: the running service's publisher (bus-events.ts), or
   * 'through-database' for a process beside it (operator commands): PostgreSQL NOTIFY, which
   * every running replica relays to its bus (store/event-relay.ts).
   */
  events: AuthEvents | 'through-database';
  logger: Logger;
}

export async function createAuthCore(options: AuthCoreOptions): Promise<AuthCore> {
  const db = openAuthDatabase({ databaseUrl: options.config.databaseUrl, logger: options.logger });
  try {
    return await compose(db, options);
  } catch (error) {
    await db.$disconnect();
    throw error;
  }
}

async function compose(db: AuthDatabase, options: AuthCoreOptions): Promise<AuthCore> {
  const { config, publicUrl, logger } = options;
  const published = options.events === 'through-database' ? notifyEvents(db) : options.events;
  const apiResource = `${publicUrl}/api/v1`;
  const claimRows = agentClaimRows(db);
  const recentTokens = new RecentTokens(config.tokenReadCacheMs);
  const forgetRevoked = (revoked: RevokedAccess) => {
    claimRows.forget(revoked.accountId, revoked.clientId);
    recentTokens.forgetRevoked(revoked);
  };
  // Every revocation made here also drops what introspection keeps about the agent and its tokens.
  const events: AuthEvents = {
    ...published,
    tokensRevoked: async (revoked) => {
      for (const item of revoked) forgetRevoked(item);
      await published.tokensRevoked(revoked);
    },
  };
  const jwks = await loadSigningKeys({ prisma: db, keyEncryptionKey: config.keyEncryptionKey });
  const tokenTags = new TokenTags(config.tokenTagKeys);
  const legacyTokens = await LegacyCutOver.load(db, config.legacyTokensUntil);
  const adapter = createOidcAdapterFactory({
    prisma: db,
    tokenHashKey: config.tokenHashKey,
    onAccessTokensRevoked: events.tokensRevoked,
    recentTokens,
    tokenTags,
    legacy: legacyTokens,
  });
  const configuration = providerConfiguration({
    config,
    apiResource,
    // Dynamic registration goes through the registration policy; the agents' own clients do not.
    // A client id that is a URL is its metadata document's (provider/client-documents.ts).
    adapter: withClientDocuments(
      withRegistrationPolicy(adapter),
      new ClientDocuments({ allowLoopback: config.cimdAllowLoopback }),
    ),
    jwks,
    findAccount: accountLookup(db),
  });
  const provider = createProvider(publicUrl, configuration, logger);
  tagTokenIds(provider, tokenTags);
  if (legacyTokens.open())
    logger.info(
      { legacyTokensUntil: legacyTokens.until },
      'tokens issued before the pag_ prefix are accepted until then (LEGACY_TOKENS_UNTIL ends it earlier)',
    );
  const agents = new AgentStore({
    prisma: db,
    provider,
    adapter,
    apiResource,
    onRevoked: events.tokensRevoked,
  });
  provider.use(agentClaimsMiddleware(claimRows));
  registerDeviceGrant(provider, { assertions: new DeviceAssertions(db), agents });
  const accounts = new AccountStore(db);
  const close = () => db.$disconnect();
  return {
    provider,
    publicUrl,
    apiResource,
    accounts,
    agents,
    handshakes: new HandshakeStore({ prisma: db, agents, publicUrl, events }),
    devices: new DeviceStore({ prisma: db, agents, events }),
    deviceRegistrations: new DeviceRegistrations({ prisma: db, publicUrl }),
    auditOutbox: new AuditOutbox(db),
    signingKeyIds: jwks.keys.map((key) => key.kid),
    legacyTokens,
    purgeTasks: [
      // Legacy tokens expire and are revoked: the legacy path narrows, and closes with the last.
      purgeExpiredPayloads(db, legacyTokens),
      { name: 'login_attempts', run: () => accounts.throttle.purgeExpired() },
    ],
    forgetRevoked,
    rotateSigningKeys: () => rotateSigningKeys({ prisma: db, keyEncryptionKey: config.keyEncryptionKey }),
    listClients: () => listRegisteredClients(db),
    close,
    [Symbol.asyncDispose]: close,
  };
}
