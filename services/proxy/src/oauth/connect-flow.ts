/**
 * The owner's connect flow, on the proxy's side (the dashboard's side is the auth service's
 * /dashboard/services; docs/adr/0065). The proxy owns every call to a provider and the vault;
 * the dashboard owns the owner's session and passes its account and a hash of the session.
 *
 * - start: a random `state` (256 bits; only its SHA-256 is stored), bound to the account, the
 *   connector and the owner's session, valid CONNECT_STATE_TTL, and a PKCE S256 pair where the
 *   provider takes PKCE; answers the provider's authorization URL.
 * - finish: the state is taken (deleted as it is read: single use) and must be unexpired, of the
 *   same account and the same session; then the code is exchanged at the provider's token
 *   endpoint with the deployment's client authentication and the verifier, and the tokens are
 *   stored in the vault (the connection becomes healthy, whatever it was).
 * - API key: stored as the connection's one credential.
 * - disconnect: the provider's revocation where it offers one (refresh token first, since revoking
 *   it ends the grant at most providers), then the connection and its tokens are deleted, whether
 *   or not the provider confirmed (the owner asked to forget them).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ConnectDone, ConnectFinish, ConnectStart } from '@pag/contracts';
import { AppError } from '@pag/contracts';
import { connectorNamed } from '../calls/connection.ts';
import { isAddressRefusal, upstreamError } from '../calls/upstream.ts';
import type { ConnectorDefinition } from '../connectors/catalogue.ts';
import { parseApiKeyConnection } from '../domain/api-key-input.ts';
import type { ConnectStore } from '../store/connect-store.ts';
import type { VaultStore } from '../store/vault-store.ts';
import type { OAuthConnector } from './provider-client.ts';
import {
  authorizationUrl,
  exchangeCode,
  isOAuthConnector,
  ProviderRefusedError,
  ProviderUnavailableError,
  pkcePair,
  revokeToken,
} from './provider-client.ts';

export interface ConnectFlowDeps {
  connectors: ReadonlyMap<string, ConnectorDefinition>;
  store: VaultStore;
  connect: ConnectStore;
  connectStateTtlMs: number;
  /** The deadline of each call to a provider. */
  timeoutMs: number;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

function oauthConnector(connector: ConnectorDefinition): OAuthConnector {
  if (connector.oauth === null) {
    throw new AppError(
      'INVALID_REQUEST',
      `${connector.displayName} is connected with an API key, not OAuth.`,
      {
        hint: 'Send the key in the API key form of /dashboard/services.',
      },
    );
  }
  if (!isOAuthConnector(connector)) {
    throw new AppError(
      'CONNECTOR_NOT_CONFIGURED',
      `This deployment has no OAuth client for ${connector.displayName}.`,
      {
        hint: 'Enter your own client id and secret for it on /dashboard/services, or ask the operator (CONNECTOR_CLIENTS).',
      },
    );
  }
  return connector;
}

export async function startConnect(
  input: ConnectStart,
  deps: ConnectFlowDeps,
): Promise<{ authorizationUrl: string }> {
  const connector = oauthConnector(connectorNamed(deps.connectors, input.service));
  const state = randomBytes(32).toString('base64url');
  const pkce = connector.oauth.pkce ? pkcePair() : null;
  await deps.connect.createAttempt(sha256(state), {
    accountId: input.accountId,
    service: connector.name,
    sessionHash: input.sessionBinding,
    codeVerifier: pkce?.verifier ?? null,
    redirectUri: input.redirectUri,
    expiresAt: new Date(Date.now() + deps.connectStateTtlMs),
  });
  return {
    authorizationUrl: authorizationUrl(connector, {
      state,
      redirectUri: input.redirectUri,
      codeChallenge: pkce?.challenge ?? null,
    }),
  };
}

function connectFailed(message: string): AppError {
  return new AppError('CONNECT_FAILED', message);
}

export async function finishConnect(input: ConnectFinish, deps: ConnectFlowDeps): Promise<ConnectDone> {
  const attempt = await deps.connect.takeAttempt(sha256(input.state));
  if (
    attempt === null ||
    attempt.accountId !== input.accountId ||
    attempt.sessionHash !== input.sessionBinding
  ) {
    throw connectFailed('This connect link is unknown, was used already or belongs to another session.');
  }
  if (attempt.expiresAt.getTime() <= Date.now()) throw connectFailed('This connect link has expired.');
  const connector = oauthConnector(connectorNamed(deps.connectors, attempt.service));
  if (input.code === null) {
    throw connectFailed(`${connector.displayName} did not grant access (${input.error ?? 'no code'}).`);
  }
  try {
    const tokens = await exchangeCode(
      connector,
      { code: input.code, redirectUri: attempt.redirectUri, codeVerifier: attempt.codeVerifier },
      deps.timeoutMs,
    );
    await deps.connect.saveConnected(input.accountId, connector.name, tokens);
  } catch (error) {
    if (error instanceof ProviderRefusedError) {
      throw new AppError(
        'UPSTREAM_ERROR',
        `${connector.displayName} refused the authorization code (${error.oauthError}).`,
        {
          cause: error,
          expose: true,
          hint: 'Start the connect flow again from /dashboard/services.',
        },
      );
    }
    if (error instanceof ProviderUnavailableError && isAddressRefusal(error)) {
      throw upstreamError(connector, 'refused', { timeoutMs: deps.timeoutMs, bodyLimitBytes: 0 }, error);
    }
    if (error instanceof ProviderUnavailableError) {
      throw new AppError(
        'UPSTREAM_ERROR',
        `${connector.displayName} could not be reached to finish connecting.`,
        {
          cause: error,
          expose: true,
        },
      );
    }
    throw error;
  }
  return { service: connector.name, displayName: connector.displayName };
}

export async function connectApiKey(
  input: { accountId: string; service: string; key: string },
  deps: ConnectFlowDeps,
): Promise<ConnectDone> {
  const connector = connectorNamed(deps.connectors, input.service);
  if (connector.authType !== 'api_key') {
    throw new AppError(
      'INVALID_REQUEST',
      `${connector.displayName} is connected through OAuth, not an API key.`,
      {
        hint: 'Use its Connect button on /dashboard/services.',
      },
    );
  }
  const valid = parseApiKeyConnection(
    { accountId: input.accountId, service: connector.name, label: 'api-key', value: input.key, scopes: [] },
    deps.connectors,
  );
  // The connection's one credential: whatever else it held goes.
  await deps.connect.deleteConnection(input.accountId, connector.name);
  await deps.store.storeApiKeyConnection(valid);
  return { service: connector.name, displayName: connector.displayName };
}

export async function disconnect(
  input: { accountId: string; service: string },
  deps: ConnectFlowDeps,
): Promise<ConnectDone> {
  const connector = connectorNamed(deps.connectors, input.service);
  let revoked = false;
  if (isOAuthConnector(connector) && connector.oauth.revocation !== null) {
    const tokens = await deps.connect.oauthTokens(input.accountId, connector.name);
    if (tokens.refresh !== null) {
      revoked = await revokeToken(
        connector,
        { value: tokens.refresh, hint: 'refresh_token' },
        deps.timeoutMs,
      );
    }
    if (tokens.access !== null) {
      revoked =
        (await revokeToken(connector, { value: tokens.access, hint: 'access_token' }, deps.timeoutMs)) ||
        revoked;
    }
  }
  const existed = await deps.connect.deleteConnection(input.accountId, connector.name);
  if (!existed) {
    throw new AppError('NOT_FOUND', `${connector.displayName} is not connected.`, {
      hint: '/dashboard/services lists what is connected.',
    });
  }
  return { service: connector.name, displayName: connector.displayName, revoked };
}
