/**
 * What a set of scopes implies for the documents that list it, the capabilities and the context:
 * the expanded scopes and the listed endpoints the scopes allow, each with whether its service
 * runs now (also as JSON, UTF-8, which the context splices into its answer). Endpoints the scopes do
 * not allow are left out: both documents are "what this token may call" (docs/adr/0062).
 *
 * It depends on the scopes and the set of running services alone (the route table and the scope
 * catalogue do not change while the process runs), and it is the costliest piece of either answer
 * (the endpoint list 15–30 µs: the scope matcher over every listed route; its JSON 8–20 µs more),
 * so it is worked out once per distinct scope set and directory version: a service starting or
 * stopping starts the cache again. The arrays are shared by every answer, which serialises them
 * at once.
 */
import type { EndpointAccess } from '@pag/contracts';
import { endpointsForScopes, expandScopes, routeById } from '@pag/contracts';
import type { DirectorySnapshot } from '@pag/kit';
import { availabilityOf } from './availability.ts';

export interface ScopeListing {
  expanded: string[];
  endpoints: EndpointAccess[];
  /** The endpoints' JSON as UTF-8: the context writes it as bytes (routes/context-body.ts). */
  endpointsJson: Buffer;
}

/**
 * Listings by directory snapshot, then by scope set. A snapshot is immutable and replaced when
 * the running services change (its version with it), so it is the key: a listing never outlives
 * the set it was worked out for, old snapshots go with the garbage, and two gateways in one
 * process (tests, the stack) never read each other's.
 */
const bySnapshot = new WeakMap<DirectorySnapshot, Map<string, ScopeListing>>();
/** Distinct scope sets kept per snapshot; past it the map starts again (tokens hold few distinct sets). */
const BY_SCOPES_MAX = 1000;

export function scopeListing(scopes: readonly string[], directory: DirectorySnapshot): ScopeListing {
  let byScopes = bySnapshot.get(directory);
  if (byScopes === undefined) {
    byScopes = new Map();
    bySnapshot.set(directory, byScopes);
  }
  // Scope tokens never contain a space (RFC 6749, 3.3).
  const key = scopes.join(' ');
  let listing = byScopes.get(key);
  if (listing === undefined) {
    const endpoints = endpointsForScopes(scopes)
      .filter((endpoint) => endpoint.allowed)
      .map((endpoint) => ({ ...endpoint, ...availabilityOf(routeById(endpoint.id), directory.running) }));
    listing = {
      expanded: expandScopes(scopes),
      endpoints,
      endpointsJson: Buffer.from(JSON.stringify(endpoints)),
    };
    if (byScopes.size >= BY_SCOPES_MAX) byScopes.clear();
    byScopes.set(key, listing);
  }
  return listing;
}
