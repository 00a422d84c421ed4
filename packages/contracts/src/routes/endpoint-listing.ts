/**
 * The route table as the agent-facing documents list it: the discovery index's endpoint map and
 * the per-token endpoint list of the capabilities and context responses. Built here so every
 * document shows the same names, paths and scopes.
 */

import type { Availability, EndpointGrant } from '../schemas/auth.ts';
import type { DiscoveryIndex } from '../schemas/discovery.ts';
import { expandScopes, scopeGrants } from '../scopes/scope-matcher.ts';
import { accessByMethod, documentedScope } from './match-route.ts';
import { RouteTable } from './route-table.ts';
import type { RouteDefinition } from './route-types.ts';

/**
 * `{ quickStart: { endpoint: 'GET /api/v1/quick-start', available: true }, … }` for the discovery
 * index, each with the availability its service has now (the caller knows which services run).
 */
export function discoveryEndpoints(
  availabilityOf: (route: RouteDefinition) => Availability,
  routes: readonly RouteDefinition[] = RouteTable,
): DiscoveryIndex['endpoints'] {
  return Object.fromEntries(
    routes
      .filter((route) => route.listed)
      .map((route) => [route.id, { endpoint: `${route.method} ${route.path}`, ...availabilityOf(route) }]),
  );
}

/**
 * Every listed endpoint with whether the granted scopes allow it. A scope template counts as
 * allowed when the token holds that access on at least one service (or one resource of one); a
 * template whose access the connector decides, when it holds either.
 */
export function endpointsForScopes(
  granted: readonly string[],
  routes: readonly RouteDefinition[] = RouteTable,
): EndpointGrant[] {
  const expanded = expandScopes(granted);
  return routes
    .filter((route) => route.listed)
    .map((route) => {
      const scope = documentedScope(route);
      // A GET whose access the connector decides may be a read or a write.
      const access = accessByMethod(route);
      const suffixes = access === null ? [':read', ':write'] : [`:${access}`];
      const allowed =
        scope === null
          ? true
          : scope.includes('{')
            ? expanded.some(
                (held) => held.startsWith('services:') && suffixes.some((suffix) => held.endsWith(suffix)),
              )
            : scopeGrants(granted, scope);
      return { id: route.id, method: route.method, path: route.path, requiredScope: scope, allowed };
    });
}
