/**
 * Keeps OAuth access tokens usable (docs/adr/0065): a token expiring within the margin
 * (TOKEN_REFRESH_MARGIN_MS), or one the provider answered 401 to, is refreshed before the call.
 *
 * One refresh at a time per connection: callers in this process share the one refresh under way
 * (a promise per connection), and replicas meet at the connection row's lock in PostgreSQL
 * (ConnectStore.refreshUnderLock), where a caller that waited finds the token the first one
 * stored. A refusal by the provider marks the connection needs_reconnect (shown by
 * GET /api/v1/services and the dashboard) and publishes a `connection.refresh_failed` audit event;
 * reconnecting makes it healthy again. A provider that cannot be reached leaves the connection
 * as it is and fails the call (502), unless the old token is still valid.
 */
import type { Bus, Logger } from '@pag/kit';
import { actionAuditPublisher } from '@pag/kit';
import type { OAuthConnector } from '../oauth/provider-client.ts';
import { refreshTokens } from '../oauth/provider-client.ts';
import type { ConnectStore, RefreshOutcome } from '../store/connect-store.ts';

export interface TokenRefresherOptions {
  store: ConnectStore;
  bus: Bus;
  logger: Logger;
  /** How long before its expiry a token is refreshed. */
  marginMs: number;
  /** The deadline of a call to the provider's token endpoint. */
  timeoutMs: number;
}

export class TokenRefresher {
  readonly #options: TokenRefresherOptions;
  readonly #audit;
  readonly #inFlight = new Map<string, Promise<RefreshOutcome>>();
  readonly #writes = new Set<Promise<void>>();

  constructor(options: TokenRefresherOptions) {
    this.#options = options;
    this.#audit = actionAuditPublisher('proxy', options.bus, options.logger);
  }

  get marginMs(): number {
    return this.#options.marginMs;
  }

  /** Refreshes unless another caller (here or in another replica) did; one at a time. */
  refresh(
    accountId: string,
    connector: OAuthConnector,
    staleTokenId: string | null,
    requestId: string,
  ): Promise<RefreshOutcome> {
    const key = `${accountId}\n${connector.name}`;
    const running = this.#inFlight.get(key);
    if (running !== undefined) return running;
    const started = this.#refresh(accountId, connector, staleTokenId, requestId).finally(() =>
      this.#inFlight.delete(key),
    );
    this.#inFlight.set(key, started);
    return started;
  }

  /**
   * A provider answered 401 to this token: expire it so the next lookup refreshes (true when it
   * was still the current token and a refresh token exists). close() waits for these writes.
   */
  rejected(accountId: string, connector: OAuthConnector, tokenId: string): Promise<boolean> {
    const write = this.#options.store.expireAccessToken(accountId, connector.name, tokenId);
    const tracked = write.then(
      () => undefined,
      () => undefined,
    );
    this.#writes.add(tracked);
    void tracked.finally(() => this.#writes.delete(tracked));
    return write;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.#inFlight.values(), ...this.#writes]);
    await this.#audit.close();
  }

  async #refresh(
    accountId: string,
    connector: OAuthConnector,
    staleTokenId: string | null,
    requestId: string,
  ): Promise<RefreshOutcome> {
    const { store, marginMs, timeoutMs, logger } = this.#options;
    const outcome = await store.refreshUnderLock(
      accountId,
      connector.name,
      staleTokenId,
      marginMs,
      (refreshToken) => refreshTokens(connector, refreshToken, timeoutMs),
    );
    if (outcome.outcome === 'refused') {
      logger.warn(
        {
          service: connector.name,
          oauthError: outcome.error.oauthError,
          status: outcome.error.status,
          requestId,
        },
        'connection needs reconnect: the provider refused to refresh its token',
      );
      this.#audit.record(
        {
          requestId,
          accountId,
          clientId: null,
          agentId: null,
          actor: { type: 'service', id: null },
          action: 'connection.refresh_failed',
          target: connector.name,
          decision: 'error',
          reason: 'NEEDS_RECONNECT',
          status: outcome.error.status,
          latencyMs: null,
          detail: { oauthError: outcome.error.oauthError },
        },
        { requestId, service: connector.name },
      );
    }
    return outcome;
  }
}
