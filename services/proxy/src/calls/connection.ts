/**
 * Which connector a call names and the account's credential for it, for both ways a call comes
 * in (HTTP from the gateway, proxy.calls.forward from the brain). A name outside the catalogue is
 * 404 NOT_FOUND (GET /api/v1/connectors lists the catalogue); a connector this account has not
 * connected, or whose connection expired, failed or needs a reconnect, tells the agent that the
 * owner must connect it (notConnected, errors.ts).
 *
 * An OAuth access token that expires within the refresh margin, or has expired while a refresh
 * token is stored, is refreshed first (calls/token-refresh.ts: one refresh per connection across
 * replicas). A refresh the provider refuses is a 409 needing a reconnect; a provider that cannot
 * be reached is a 502 unless the current token is still valid, which is then used.
 *
 * An OAuth credential's `expiresAt` is its refresh point, not the token's expiry: the credential
 * cache keeps nothing past it, so a refresh that is due is never hidden by a copy in memory; and a
 * refresh writes vault rows, whose trigger drops every replica's copy (docs/adr/0067).
 */
import { AppError } from '@pag/contracts';
import type { ConnectorDefinition } from '../connectors/catalogue.ts';
import { notConnected } from '../errors.ts';
import type { OAuthConnector } from '../oauth/provider-client.ts';
import { isOAuthConnector, ProviderUnavailableError } from '../oauth/provider-client.ts';
import type { VaultStore } from '../store/vault-store.ts';
import type { TokenRefresher } from './token-refresh.ts';

/** The vault token a call uses, and its decrypted value (sent to the connector's host only). */
export interface Credential {
  tokenId: string;
  value: string;
  /**
   * Until when the credential may be used without asking again (null: until it is revoked or
   * replaced); a cached copy is not used past it. The token's expiry, or, for an OAuth token, the
   * moment it is due for a refresh (its expiry minus the refresh margin): the credential cache
   * (calls/credential-cache.ts) must never hide a due refresh, which runs only in credentialOf.
   */
  expiresAt: Date | null;
}

export function connectorNamed(
  connectors: ReadonlyMap<string, ConnectorDefinition>,
  name: string,
): ConnectorDefinition {
  const connector = connectors.get(name);
  if (connector === undefined) {
    throw new AppError('NOT_FOUND', `No connector is named ${name}.`, {
      hint: 'GET /api/v1/connectors lists the services an owner can connect.',
    });
  }
  return connector;
}

/** Where credentials come from: the vault's lookup and the refresher (the parts used here). */
export interface CredentialSource {
  store: Pick<VaultStore, 'credentialFor'>;
  refresher: Pick<TokenRefresher, 'marginMs' | 'refresh'>;
}

export async function credentialOf(
  source: CredentialSource,
  accountId: string,
  connector: ConnectorDefinition,
  requestId: string,
): Promise<Credential> {
  const found = await source.store.credentialFor(accountId, connector.name);
  if (found.state === 'connected') {
    if (!isOAuthConnector(connector)) {
      return { tokenId: found.tokenId, value: found.value, expiresAt: found.expiresAt };
    }
    const due = refreshDue(found.expiresAt, source.refresher.marginMs);
    if (due === null || due.getTime() > Date.now()) {
      return { tokenId: found.tokenId, value: found.value, expiresAt: due };
    }
    const current = { tokenId: found.tokenId, value: found.value, validUntil: found.expiresAt };
    return refreshed(source, accountId, connector, found.tokenId, requestId, current);
  }
  if (found.state === 'stale' && isOAuthConnector(connector)) {
    return refreshed(source, accountId, connector, found.tokenId, requestId, null);
  }
  throw notConnected(connector, found.state === 'stale' ? 'expired' : found.state);
}

/** When an OAuth access token is due for a refresh (null: it does not expire). */
function refreshDue(expiresAt: Date | null, marginMs: number): Date | null {
  return expiresAt === null ? null : new Date(expiresAt.getTime() - marginMs);
}

/** The access token found due for a refresh, usable until its own expiry if the refresh fails. */
interface CurrentToken {
  tokenId: string;
  value: string;
  validUntil: Date | null;
}

function stillValid(current: CurrentToken | null): current is CurrentToken {
  return current !== null && (current.validUntil === null || current.validUntil.getTime() > Date.now());
}

async function refreshed(
  source: CredentialSource,
  accountId: string,
  connector: OAuthConnector,
  staleTokenId: string | null,
  requestId: string,
  current: CurrentToken | null,
): Promise<Credential> {
  // The current token past its refresh point: usable for this call only (expiresAt now, so the
  // credential cache does not keep it and the next call tries the refresh again).
  const fallback = (token: CurrentToken): Credential => ({
    tokenId: token.tokenId,
    value: token.value,
    expiresAt: new Date(),
  });
  try {
    const outcome = await source.refresher.refresh(accountId, connector, staleTokenId, requestId);
    switch (outcome.outcome) {
      case 'fresh':
      case 'refreshed':
        return {
          tokenId: outcome.tokenId,
          value: outcome.value,
          expiresAt: refreshDue(outcome.expiresAt, source.refresher.marginMs),
        };
      case 'refused':
        throw notConnected(connector, 'needs_reconnect');
      default:
        if (stillValid(current)) return fallback(current);
        throw notConnected(connector, outcome.outcome === 'not_connected' ? 'needs_reconnect' : 'expired');
    }
  } catch (error) {
    if (!(error instanceof ProviderUnavailableError)) throw error;
    if (stillValid(current)) return fallback(current);
    throw new AppError('UPSTREAM_ERROR', `${connector.displayName} could not renew the connection's token.`, {
      cause: error,
      expose: true,
      hint: `${connector.displayName}'s token endpoint did not answer; retry later.`,
    });
  }
}
