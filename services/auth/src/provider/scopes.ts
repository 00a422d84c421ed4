/**
 * Which scopes exist. Two kinds: OpenID Connect's own (`openid`, `offline_access`), handled by
 * oidc-provider; and our API's, granted on the API resource and named by the scope grammar of
 * @pag/contracts (static ones such as `read`, plus `services:{name}:…` for any service name).
 *
 * What it enforces: an authorization request naming a scope outside both kinds fails with
 * invalid_scope (oidc-provider would otherwise drop it silently, and the client would believe it
 * asked for something this server does not know).
 */
import { isScope, MCP_CHALLENGE_SCOPES, ScopeCatalogue } from '@pag/contracts';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { errors } from 'oidc-provider';

export const OIDC_SCOPES = ['openid', 'offline_access'] as const;

/**
 * What an authorization request that names no API scope (no `scope`, or only openid /
 * offline_access) asks for: the scopes a 401 of the MCP endpoint names (knowledge and chat), so a
 * client that asks for nothing gets what the gateway's own challenge would have told it to ask
 * for, never `full`. Documented in /auth.md and the README.
 */
export const DEFAULT_SCOPES: readonly string[] = MCP_CHALLENGE_SCOPES;

/** The API scopes that are names rather than templates, in catalogue order. */
export const STATIC_API_SCOPES: readonly string[] = Object.keys(ScopeCatalogue).filter(
  (s) => !s.includes('{'),
);

/** Everything discovery lists under scopes_supported. */
export const SCOPES_SUPPORTED: readonly string[] = [...OIDC_SCOPES, ...STATIC_API_SCOPES];

const oidcScope = new Set<string>(OIDC_SCOPES);

function words(value: unknown): string[] {
  return typeof value === 'string' ? value.split(' ').filter((word) => word !== '') : [];
}

/**
 * An authorization request naming no API scope asks for DEFAULT_SCOPES besides its OpenID ones.
 * Run where oidc-provider asks for the resource server (resource-indicators.ts), the first hook
 * after it has read and checked `scope` and before the consent prompt reads it.
 */
export function applyDefaultScopes(ctx: KoaContextWithOIDC): void {
  const { params, route } = ctx.oidc;
  if (route !== 'authorization' || params === undefined) return;
  const requested = words(params.scope);
  if (requested.some((scope) => !oidcScope.has(scope))) return;
  params.scope = [...requested, ...DEFAULT_SCOPES].join(' ');
}

/**
 * The API scopes this request may receive on the API resource: every static one, and every
 * grammar-valid one the request or the code / refresh token it redeems names (dynamic service
 * scopes cannot be listed in advance).
 */
export function apiScopesFor(ctx: KoaContextWithOIDC): string[] {
  const { params, entities, route } = ctx.oidc;
  const requested = words(params?.scope);
  if (route === 'authorization') {
    const unknown = requested.find((scope) => !oidcScope.has(scope) && !isScope(scope));
    if (unknown !== undefined) throw new errors.InvalidScope('requested scope is not supported', unknown);
  }
  const named = [
    ...requested,
    ...words(entities.AuthorizationCode?.scope),
    ...words(entities.RefreshToken?.scope),
  ];
  return [
    ...new Set([...STATIC_API_SCOPES, ...named.filter((scope) => !oidcScope.has(scope) && isScope(scope))]),
  ];
}
