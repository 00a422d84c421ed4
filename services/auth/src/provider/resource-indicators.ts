/**
 * RFC 8707 resource indicators: the API (`${PUBLIC_URL}/api/v1`) is the only resource. A request
 * without `resource` gets it by default; any other resource is invalid_target. Every access token
 * is opaque, for that audience, and carries API scopes only (scopes.ts); a refresh keeps the
 * resource granted at consent (useGrantedResource), so tokens never lose their audience.
 */
import type { Configuration } from 'oidc-provider';
import { errors } from 'oidc-provider';
import { apiScopesFor } from './scopes.ts';

type ResourceIndicators = NonNullable<NonNullable<Configuration['features']>['resourceIndicators']>;

export function resourceIndicators(apiResource: string, accessTokenTtlSeconds: number): ResourceIndicators {
  return {
    enabled: true,
    defaultResource: () => apiResource,
    useGrantedResource: () => true,
    getResourceServerInfo: (ctx, resource) => {
      if (resource !== apiResource) throw new errors.InvalidTarget(`the only resource is ${apiResource}`);
      return {
        scope: apiScopesFor(ctx).join(' '),
        audience: apiResource,
        accessTokenFormat: 'opaque',
        accessTokenTTL: accessTokenTtlSeconds,
      };
    },
  };
}
