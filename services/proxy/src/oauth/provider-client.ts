/**
 * The proxy's side of OAuth 2.0 with a provider (RFC 6749, 7636, 7009), driven by the connector's
 * declarative definition: the authorization URL (state, PKCE S256 where the provider takes it,
 * its scopes and extra parameters), the code exchange and the refresh at its token endpoint with
 * the configured client authentication, and revocation.
 *
 * What it enforces: every request has a deadline (UPSTREAM_TIMEOUT_MS) and follows no redirect
 * (a redirect could carry the client secret elsewhere); an answer is a token set only when it
 * has an access_token (GitHub and Slack answer errors with status 200). A refusal by the provider
 * (invalid_grant and other OAuth errors, 400/401) is told apart from the provider being
 * unreachable or failing (5xx): only a refusal marks a connection needs_reconnect. Nothing here
 * logs or returns a secret or the provider's body.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { OAuth2Auth } from '@pag/contracts';
import { fetchPublic } from '@pag/kit';
import type { ConnectorDefinition, OAuthClient } from '../connectors/catalogue.ts';

export interface TokenSet {
  accessToken: string;
  /** null: the answer had none (a refresh keeps the stored one). */
  refreshToken: string | null;
  expiresAt: Date | null;
  scopes: string[];
}

/** The provider answered, and said no (the OAuth error code, never its description). */
export class ProviderRefusedError extends Error {
  override name = 'ProviderRefusedError';
  readonly oauthError: string;
  readonly status: number;
  constructor(oauthError: string, status: number) {
    super(`the provider refused: ${oauthError} (${status})`);
    this.oauthError = oauthError;
    this.status = status;
  }
}

/** The provider could not be asked, or failed (no answer in time, 5xx, an answer we cannot read). */
export class ProviderUnavailableError extends Error {
  override name = 'ProviderUnavailableError';
}

/** Largest answer read from an owner's connector's token or revocation endpoint. */
const PUBLIC_ANSWER_MAX_BYTES = 64 * 1024;

/**
 * A POST to a provider's endpoint. An owner's own connector goes through kit's fetchPublic: its
 * host resolved once, every address public, the connection to the checked address; a refused
 * address throws (a PublicFetchError as cause) before anything is sent.
 */
async function post(
  connector: OAuthConnector,
  url: string,
  init: { headers: Record<string, string>; body?: string | URLSearchParams },
  timeoutMs: number,
): Promise<Response> {
  if (connector.publicOnly === null) {
    return fetch(url, {
      method: 'POST',
      headers: init.headers,
      body: init.body ?? null,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  }
  const answer = await fetchPublic(url, {
    method: 'POST',
    headers: init.headers,
    ...(init.body === undefined ? {} : { body: init.body.toString() }),
    timeoutMs,
    maxBytes: PUBLIC_ANSWER_MAX_BYTES,
    allowLoopback: connector.publicOnly.allowLoopback,
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  return new Response(answer.status === 204 ? null : new Uint8Array(answer.body), {
    status: answer.status,
    headers,
  });
}

export interface OAuthConnector extends ConnectorDefinition {
  readonly oauth: OAuth2Auth;
  readonly client: OAuthClient;
}

export function isOAuthConnector(connector: ConnectorDefinition): connector is OAuthConnector {
  return connector.oauth !== null && connector.client !== null;
}

/** A fresh PKCE verifier (RFC 7636: 43 characters of base64url) and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizationUrl(
  connector: OAuthConnector,
  input: { state: string; redirectUri: string; codeChallenge: string | null },
): string {
  const { oauth, client } = connector;
  const url = new URL(oauth.authorizationUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', client.clientId);
  url.searchParams.set('redirect_uri', input.redirectUri);
  url.searchParams.set('state', input.state);
  if (oauth.defaultScopes.length > 0)
    url.searchParams.set(oauth.scopeParameter, oauth.defaultScopes.join(oauth.scopeSeparator));
  if (input.codeChallenge !== null) {
    url.searchParams.set('code_challenge', input.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
  }
  for (const [name, value] of Object.entries(oauth.authorizationParams)) url.searchParams.set(name, value);
  return url.toString();
}

/** RFC 6749 §2.3.1: id and secret form-encoded, then joined for Basic. */
function basicCredentials(client: OAuthClient): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return Buffer.from(`${encode(client.clientId)}:${encode(client.clientSecret)}`).toString('base64');
}

/**
 * A POST to the token or revocation endpoint with the client's authentication, its parameters
 * form-encoded (RFC 6749) or, where the provider takes only that, as a JSON object (Notion).
 */
async function postForm(
  connector: OAuthConnector,
  url: string,
  fields: Record<string, string>,
  timeoutMs: number,
): Promise<Response> {
  const parameters = { ...fields };
  const headers: Record<string, string> = {
    'content-type':
      connector.oauth.tokenRequestFormat === 'json'
        ? 'application/json'
        : 'application/x-www-form-urlencoded',
    // GitHub answers form-encoded without it.
    accept: 'application/json',
  };
  if (connector.oauth.clientAuth === 'client_secret_basic') {
    headers.authorization = `Basic ${basicCredentials(connector.client)}`;
  } else {
    parameters.client_id = connector.client.clientId;
    parameters.client_secret = connector.client.clientSecret;
  }
  try {
    const body =
      connector.oauth.tokenRequestFormat === 'json'
        ? JSON.stringify(parameters)
        : new URLSearchParams(parameters);
    return await post(connector, url, { headers, body }, timeoutMs);
  } catch (error) {
    throw new ProviderUnavailableError(`${connector.displayName} could not be reached`, { cause: error });
  }
}

/**
 * The part of a token answer that holds the tokens: the answer itself, or, when it has no
 * access_token, the member the definition names (Slack answers a user token's code exchange in
 * `authed_user`, and its refresh at the top level).
 */
function tokensOf(connector: OAuthConnector, answer: Record<string, unknown>): Record<string, unknown> {
  const member = connector.oauth.tokenAnswerMember;
  if (member === null || typeof answer.access_token === 'string') return answer;
  const nested = Object.hasOwn(answer, member) ? answer[member] : undefined;
  return typeof nested === 'object' && nested !== null && !Array.isArray(nested)
    ? (nested as Record<string, unknown>)
    : answer;
}

async function tokenAnswer(connector: OAuthConnector, response: Response, now: Date): Promise<TokenSet> {
  let answer: Record<string, unknown> = {};
  try {
    answer = (await response.json()) as Record<string, unknown>;
  } catch (error) {
    if (response.status < 500 && response.status >= 400)
      throw new ProviderRefusedError('invalid_response', response.status);
    throw new ProviderUnavailableError(`${connector.displayName} answered no JSON (${response.status})`, {
      cause: error,
    });
  }
  if (response.status >= 500 || (response.status >= 300 && response.status < 400)) {
    throw new ProviderUnavailableError(
      `${connector.displayName}'s token endpoint answered ${response.status}`,
    );
  }
  const tokens = tokensOf(connector, answer);
  const accessToken = tokens.access_token;
  if (response.status >= 400 || typeof accessToken !== 'string' || accessToken === '') {
    const code = typeof answer.error === 'string' ? answer.error.slice(0, 64) : 'no_access_token';
    throw new ProviderRefusedError(code, response.status);
  }
  const expiresIn = Number(tokens.expires_in);
  return {
    accessToken,
    refreshToken:
      typeof tokens.refresh_token === 'string' && tokens.refresh_token !== '' ? tokens.refresh_token : null,
    expiresAt:
      Number.isFinite(expiresIn) && expiresIn > 0 ? new Date(now.getTime() + expiresIn * 1000) : null,
    scopes:
      typeof tokens.scope === 'string' ? tokens.scope.split(/[ ,]+/).filter((scope) => scope !== '') : [],
  };
}

export async function exchangeCode(
  connector: OAuthConnector,
  input: { code: string; redirectUri: string; codeVerifier: string | null },
  timeoutMs: number,
): Promise<TokenSet> {
  const now = new Date();
  const fields: Record<string, string> = {
    grant_type: 'authorization_code',
    code: input.code,
    redirect_uri: input.redirectUri,
  };
  if (input.codeVerifier !== null) fields.code_verifier = input.codeVerifier;
  return tokenAnswer(connector, await postForm(connector, connector.oauth.tokenUrl, fields, timeoutMs), now);
}

export async function refreshTokens(
  connector: OAuthConnector,
  refreshToken: string,
  timeoutMs: number,
): Promise<TokenSet> {
  const now = new Date();
  const fields = { grant_type: 'refresh_token', refresh_token: refreshToken };
  return tokenAnswer(connector, await postForm(connector, connector.oauth.tokenUrl, fields, timeoutMs), now);
}

/** A 2xx answer to a revocation confirms it, but Slack's, which says no with 200 and {"ok": false}. */
function confirmed(answer: string): boolean {
  try {
    const parsed: unknown = JSON.parse(answer);
    return !(typeof parsed === 'object' && parsed !== null && 'ok' in parsed && parsed.ok === false);
  } catch {
    // No JSON (GitHub's 204, an empty 200): the status said it.
    return true;
  }
}

/** The revocation request, as the provider takes it. */
function revocationCall(
  connector: OAuthConnector,
  revocation: NonNullable<OAuth2Auth['revocation']>,
  token: { value: string; hint: 'access_token' | 'refresh_token' },
  timeoutMs: number,
): Promise<Response> {
  switch (revocation.style) {
    case 'rfc7009':
      // The hint is optional (RFC 7009 §2.1); Notion's reference names `token` alone in its JSON
      // body, and a body with properties a schema does not name risks a validation error.
      return postForm(
        connector,
        revocation.url,
        connector.oauth.tokenRequestFormat === 'json'
          ? { token: token.value }
          : { token: token.value, token_type_hint: token.hint },
        timeoutMs,
      );
    case 'bearer':
      return post(
        connector,
        revocation.url,
        { headers: { authorization: `Bearer ${token.value}` } },
        timeoutMs,
      );
    case 'delete_grant':
      // The catalogue's (GitHub) only: an owner's connector revokes by RFC 7009 (owner-connector.ts).
      return fetch(revocation.url.replace('{client_id}', encodeURIComponent(connector.client.clientId)), {
        method: 'DELETE',
        headers: {
          authorization: `Basic ${basicCredentials(connector.client)}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify({ access_token: token.value }),
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
  }
}

/**
 * Revokes a token where the provider offers it; true when the provider confirmed (2xx, and not
 * Slack's `ok: false`). RFC 7009 style sends the token with client authentication; `bearer` style
 * presents the token itself (Slack, Dropbox: Dropbox's ends its refresh token too); `delete_grant`
 * (GitHub) deletes the grant the access token belongs to. The last two take an access token only,
 * so a refresh token is never sent there (it is no API credential).
 */
export async function revokeToken(
  connector: OAuthConnector,
  token: { value: string; hint: 'access_token' | 'refresh_token' },
  timeoutMs: number,
): Promise<boolean> {
  const revocation = connector.oauth.revocation;
  if (revocation === null) return false;
  if (revocation.style !== 'rfc7009' && token.hint !== 'access_token') return false;
  try {
    const response = await revocationCall(connector, revocation, token, timeoutMs);
    if (!response.ok) {
      await response.body?.cancel();
      return false;
    }
    return confirmed(await response.text());
  } catch {
    return false;
  }
}
