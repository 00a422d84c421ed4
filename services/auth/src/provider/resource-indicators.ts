/**
 * RFC 8707 resource indicators: the gateway is the only resource, known by three identifiers
 * (contracts' protected-resources.ts: `${PUBLIC_URL}/api/v1`, `${PUBLIC_URL}/mcp` and the base
 * URL). A request without `resource` gets the API; a request naming one of the identifiers gets a
 * token for that audience (what an MCP client asks for after reading the metadata of the URL it
 * was given); any other resource is invalid_target. Every access token is opaque and carries API
 * scopes only (scopes.ts); a refresh keeps the resource granted at consent (useGrantedResource),
 * so tokens never lose their audience. The gateway accepts all three audiences. An authorization
 * request naming no API scope asks for the default ones (scopes.ts, DEFAULT_SCOPES).
 */
import { protectedResourceIds } from '@pag/contracts';
import type { Configuration } from 'oidc-provider';
import { errors } from 'oidc-provider';
import { apiScopesFor, applyDefaultScopes } from './scopes.ts';

type ResourceIndicators = NonNullable<NonNullable<Configuration['features']>['resourceIndicators']>;

export function resourceIndicators(
  publicUrl: string,
  apiResource: string,
  accessTokenTtlSeconds: number,
): ResourceIndicators {
  const identifiers = new Set(protectedResourceIds(publicUrl));
  return {
    enabled: true,
    defaultResource: () => apiResource,
    useGrantedResource: () => true,
    getResourceServerInfo: (ctx, resource) => {
      if (!identifiers.has(resource)) {
        throw new errors.InvalidTarget(`the resources are ${[...identifiers].join(', ')}`);
      }
      applyDefaultScopes(ctx);
      return {
        scope: apiScopesFor(ctx).join(' '),
        audience: resource,
        accessTokenFormat: 'opaque',
        accessTokenTTL: accessTokenTtlSeconds,
      };
    },
  };
}
