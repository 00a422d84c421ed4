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

export interface CredentialSource {
  store: VaultStore;
  refresher: TokenRefresher;
}

export async function credentialOf(
  source: CredentialSource,
  accountId: string,
  connector: ConnectorDefinition,
  requestId: string,
): Promise<Credential> {
  const found = await source.store.credentialFor(accountId, connector.name);
  if (found.state === 'connected') {
    const expiring =
      found.expiresAt !== null && found.expiresAt.getTime() - Date.now() <= source.refresher.marginMs;
    if (!expiring || !isOAuthConnector(connector)) return { tokenId: found.tokenId, value: found.value };
    return refreshed(source, accountId, connector, found.tokenId, requestId, {
      tokenId: found.tokenId,
      value: found.value,
      validUntil: found.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY,
    });
  }
  if (found.state === 'stale' && isOAuthConnector(connector)) {
    return refreshed(source, accountId, connector, found.tokenId, requestId, null);
  }
  throw notConnected(connector, found.state === 'stale' ? 'expired' : found.state);
}

async function refreshed(
  source: CredentialSource,
  accountId: string,
  connector: OAuthConnector,
  staleTokenId: string | null,
  requestId: string,
  current: (Credential & { validUntil: number }) | null,
): Promise<Credential> {
  try {
    const outcome = await source.refresher.refresh(accountId, connector, staleTokenId, requestId);
    switch (outcome.outcome) {
      case 'fresh':
      case 'refreshed':
        return { tokenId: outcome.tokenId, value: outcome.value };
      case 'refused':
        throw notConnected(connector, 'needs_reconnect');
      default:
        if (current !== null && current.validUntil > Date.now()) return current;
        throw notConnected(connector, outcome.outcome === 'not_connected' ? 'needs_reconnect' : 'expired');
    }
  } catch (error) {
    if (!(error instanceof ProviderUnavailableError)) throw error;
    if (current !== null && current.validUntil > Date.now()) return current;
    throw new AppError('UPSTREAM_ERROR', `${connector.displayName} could not renew the connection's token.`, {
      cause: error,
      expose: true,
      hint: `${connector.displayName}'s token endpoint did not answer; retry later.`,
    });
  }
}
