/**
 * RFC 7662 introspection is for our resource servers only (INTROSPECTION_CLIENTS: confidential,
 * client_secret_basic, no grant of their own). Any other client, even one presenting its own
 * token, is refused before a token is looked at: the answer never depends on the token, so no
 * client learns from it whether a token is valid.
 *
 * Every answer names, in TOKEN_LEGACY_HEADER, until when tokens without our prefix are still looked
 * up (docs/adr/0025), so resource servers refuse those without asking once it has passed.
 *
 * The answer for an active access token carries `account_id` (our extra claim, the owner account)
 * besides RFC 7662's members; `sub` is the same account id. An inactive answer stays RFC 7662's
 * `{"active": false}` and names why in TOKEN_INACTIVE_HEADER, `expired` or `revoked`, when that is
 * known (store/inactive-tokens.ts; docs/adr/0062): the resource server tells its caller, who holds
 * the token, which remedy fits.
 */

import type { InactiveReason } from '@pag/contracts';
import { TOKEN_INACTIVE_HEADER, TOKEN_LEGACY_HEADER } from '@pag/contracts';
import { legacyHeaderValue } from '@pag/kit';
import type { Middleware } from 'koa';
import type { Client, ClientMetadata, Configuration } from 'oidc-provider';
import type { IntrospectionClient } from '../config.ts';

export function resourceServerClients(clients: IntrospectionClient[]): ClientMetadata[] {
  return clients.map(({ clientId, clientSecret }) => ({
    client_id: clientId,
    client_secret: clientSecret,
    client_name: `Resource server ${clientId}`,
    token_endpoint_auth_method: 'client_secret_basic',
    grant_types: [],
    response_types: [],
    redirect_uris: [],
  }));
}

export function introspectionFeature(clients: IntrospectionClient[]) {
  const allowed = new Set(clients.map((client) => client.clientId));
  return { enabled: true, allowedPolicy: (_ctx: unknown, client: Client) => allowed.has(client.clientId) };
}

/** The access token's extra introspection members. */
export const extraTokenClaims: Configuration['extraTokenClaims'] = (_ctx, token) =>
  token.kind === 'AccessToken' && token.accountId !== undefined ? { account_id: token.accountId } : undefined;

function basicClientId(header: string | undefined): string | undefined {
  const match = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  try {
    // RFC 6749 §2.3.1: the id is form-urlencoded before the Basic encoding.
    return decodeURIComponent(decoded.slice(0, colon).replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

/**
 * In front of oidc-provider: an introspection request must name a resource server in HTTP Basic
 * (oidc-provider then checks its secret); anything else is 401 invalid_client. Every answer
 * carries TOKEN_LEGACY_HEADER.
 */
export function introspectionGate(
  path: string,
  clients: IntrospectionClient[],
  legacyTokens: { readonly until: Date | null },
): Middleware {
  const allowed = new Set(clients.map((client) => client.clientId));
  return async (ctx, next) => {
    if (ctx.path !== path || ctx.method !== 'POST') return next();
    ctx.set(TOKEN_LEGACY_HEADER, legacyHeaderValue(legacyTokens.until));
    const clientId = basicClientId(ctx.get('authorization'));
    if (clientId !== undefined && allowed.has(clientId)) return next();
    ctx.status = 401;
    ctx.set('WWW-Authenticate', 'Basic realm="introspection"');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      error: 'invalid_client',
      error_description: 'only resource servers may introspect tokens (client_secret_basic)',
    };
  };
}

/**
 * Installed with provider.use: an inactive introspection answer names why (TOKEN_INACTIVE_HEADER)
 * unless a later step already did (agents/agent-claims.ts: the agent's own revocation or expiry).
 */
export function inactiveReasonMiddleware(reasonOf: (token: string) => Promise<InactiveReason>): Middleware {
  return async (ctx, next) => {
    await next();
    const oidc = (ctx as { oidc?: { route?: string; params?: { token?: unknown } } }).oidc;
    const body = ctx.body as { active?: unknown } | undefined;
    if (oidc?.route !== 'introspection' || body?.active !== false || ctx.response.get(TOKEN_INACTIVE_HEADER))
      return;
    const token = oidc.params?.token;
    if (typeof token !== 'string') return;
    const reason = await reasonOf(token);
    if (reason !== 'unknown') ctx.set(TOKEN_INACTIVE_HEADER, reason);
  };
}
