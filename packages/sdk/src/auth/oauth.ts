/**
 * OAuth 2.1 for a native agent (RFC 8252): discovery from the base URL (RFC 9728 protected
 * resource metadata, then RFC 8414), dynamic registration (RFC 7591) as a public client with a
 * loopback redirect URI, authorization code with PKCE S256 and the API as the resource
 * (RFC 8707), then a credential that refreshes before expiry and after a 401, keeping the
 * rotated refresh token (`onSession` lets the caller store it). Nothing here is Node-only: the
 * redirect is received by a `RedirectReceiver` (the loopback server is in the `@pag/sdk/node`
 * entry).
 */
import { ExpiringCredential } from '../credentials.ts';
import { PagError, SDK_CODES } from '../errors.ts';
import { pkcePair, randomBase64url } from '../pkce.ts';
import { jsonOf, type Transport } from '../transport.ts';
import { postTokenRequest, type TokenAnswer, tokensOrThrow } from './token-endpoint.ts';

/** Receives the authorization response at `redirectUri`. */
export interface RedirectReceiver {
  readonly redirectUri: string;
  /** The full callback URL, once the owner's browser arrives at the redirect URI. */
  callback(): Promise<URL>;
  close(): Promise<void>;
}

/** What to keep to come back without the owner's browser: the client and its latest refresh token. */
export interface OAuthSession {
  clientId: string;
  refreshToken: string;
}

export interface OAuthOptions {
  /** Sends the owner to the authorization URL (open a browser, or show the URL to your human). */
  openAuthorizationUrl(url: string): void | Promise<void>;
  /** Where the authorization response arrives (default in `@pag/sdk/node`: a loopback server). */
  redirect?: RedirectReceiver;
  /** Scopes to ask for (default: read). */
  scopes?: string[];
  /** The client name the owner sees on the consent page. */
  clientName?: string;
  /** A session stored earlier: refreshes instead of asking the owner again. */
  session?: OAuthSession;
  /** Called with each new refresh token (they rotate): store it to resume later. */
  onSession?(session: OAuthSession): void | Promise<void>;
}

interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
}

interface ServerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint?: string;
}

/** The API's protected resource and its authorization server, from the documents the base URL publishes. */
export async function discover(transport: Transport): Promise<{ resource: string; server: ServerMetadata }> {
  const metadata = await jsonOf<ProtectedResourceMetadata>(
    await transport.send({
      method: 'GET',
      path: '/.well-known/oauth-protected-resource/api/v1',
      anonymous: true,
    }),
  );
  const issuer = metadata.authorization_servers[0];
  if (issuer === undefined)
    throw new PagError({
      code: SDK_CODES.UNEXPECTED_RESPONSE,
      message: 'The protected resource metadata names no authorization server.',
    });
  // RFC 8414 section 3: the well-known segment goes before the issuer's path.
  const { origin, pathname } = new URL(issuer);
  const server = await jsonOf<ServerMetadata>(
    await transport.send({
      method: 'GET',
      path: `${origin}/.well-known/oauth-authorization-server${pathname === '/' ? '' : pathname}`,
      anonymous: true,
    }),
  );
  if (server.issuer !== issuer)
    throw new PagError({
      code: SDK_CODES.UNEXPECTED_RESPONSE,
      message: `The authorization server metadata names issuer ${server.issuer}, not ${issuer}.`,
    });
  return { resource: metadata.resource, server };
}

async function register(
  transport: Transport,
  server: ServerMetadata,
  options: OAuthOptions,
  redirectUri: string,
) {
  if (server.registration_endpoint === undefined)
    throw new PagError({
      code: SDK_CODES.OAUTH_ERROR,
      message: 'The authorization server offers no dynamic client registration.',
    });
  const client = await jsonOf<{ client_id: string }>(
    await transport.send({
      method: 'POST',
      path: server.registration_endpoint,
      anonymous: true,
      json: {
        client_name: options.clientName ?? 'Agent (@pag/sdk)',
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
    }),
  );
  return client.client_id;
}

/** Sends the owner through login and consent; the tokens for the code the redirect brought back. */
async function authorize(
  transport: Transport,
  found: { resource: string; server: ServerMetadata },
  options: OAuthOptions,
  redirect: RedirectReceiver,
): Promise<{ clientId: string; tokens: TokenAnswer }> {
  const { server, resource } = found;
  const clientId = await register(transport, server, options, redirect.redirectUri);
  const { verifier, challenge } = await pkcePair();
  const state = randomBase64url(16);
  const url = new URL(server.authorization_endpoint);
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirect.redirectUri,
    scope: (options.scopes ?? ['read']).join(' '),
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource,
  }))
    url.searchParams.set(name, value);
  await options.openAuthorizationUrl(url.href);
  const callback = await redirect.callback();
  const answer = callback.searchParams;
  if (answer.get('state') !== state)
    throw new PagError({ code: SDK_CODES.OAUTH_ERROR, message: 'The redirect carries another state.' });
  const error = answer.get('error');
  if (error !== null)
    throw new PagError({
      code: error === 'access_denied' ? SDK_CODES.ACCESS_DENIED : SDK_CODES.OAUTH_ERROR,
      message: `Authorization failed: ${error}${answer.has('error_description') ? ` (${answer.get('error_description')})` : ''}`,
    });
  const iss = answer.get('iss');
  if (iss !== null && iss !== server.issuer)
    throw new PagError({
      code: SDK_CODES.OAUTH_ERROR,
      message: `The redirect comes from issuer ${iss}, not ${server.issuer} (RFC 9207).`,
    });
  const code = answer.get('code');
  if (code === null)
    throw new PagError({ code: SDK_CODES.OAUTH_ERROR, message: 'The redirect carries no code.' });
  const result = await postTokenRequest(transport, server.token_endpoint, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirect.redirectUri,
    client_id: clientId,
    code_verifier: verifier,
    resource,
  });
  return { clientId, tokens: tokensOrThrow(result, 'The code exchange failed') };
}

/** An OAuth credential: authorizes through the owner (or resumes a stored session), then refreshes. */
export async function oauthCredential(
  transport: Transport,
  options: OAuthOptions,
  now: () => number,
): Promise<ExpiringCredential> {
  const found = await discover(transport);
  let session: OAuthSession | null = options.session ?? null;
  let first: TokenAnswer | null = null;
  if (session === null) {
    if (options.redirect === undefined)
      throw new PagError({
        code: SDK_CODES.OAUTH_ERROR,
        message: 'OAuth needs a redirect receiver.',
        hint: "Pass oauth.redirect, or import connect from '@pag/sdk/node', which starts a loopback server.",
      });
    try {
      const { clientId, tokens } = await authorize(transport, found, options, options.redirect);
      first = tokens;
      session = { clientId, refreshToken: tokens.refresh_token ?? '' };
    } finally {
      await options.redirect.close();
    }
  }
  const keep = async (tokens: TokenAnswer, clientId: string) => {
    if (tokens.refresh_token !== undefined) {
      session = { clientId, refreshToken: tokens.refresh_token };
      await options.onSession?.(session);
    }
    return { token: tokens.access_token, expiresInSeconds: tokens.expires_in ?? 3600 };
  };
  const refresh = async () => {
    if (session === null || session.refreshToken === '')
      throw new PagError({
        code: SDK_CODES.OAUTH_ERROR,
        message: 'No refresh token to renew the access token with.',
      });
    const result = await postTokenRequest(transport, found.server.token_endpoint, {
      grant_type: 'refresh_token',
      refresh_token: session.refreshToken,
      client_id: session.clientId,
    });
    return keep(tokensOrThrow(result, 'The refresh failed'), session.clientId);
  };
  const initial = first === null || session === null ? null : await keep(first, session.clientId);
  return new ExpiringCredential(refresh, now, initial);
}
