/**
 * What a set of scopes implies for the documents that list it, the capabilities and the context:
 * the expanded scopes and every listed endpoint with whether it is allowed (also as JSON text,
 * which the context splices into its answer). It depends on the scopes alone, since the route
 * table and the scope catalogue do not change while the process runs, and it is the costliest
 * piece of either answer (the endpoint list 15–30 µs: the scope matcher over every listed route;
 * its JSON 8–20 µs more), so it is worked out once per distinct scope set. The contracts return
 * fresh arrays, and every answer is serialised at once, so the same ones go into each answer.
 */
import type { EndpointAccess } from '@pag/contracts';
import { endpointsForScopes, expandScopes } from '@pag/contracts';

export interface ScopeListing {
  expanded: string[];
  endpoints: EndpointAccess[];
  endpointsJson: string;
}

const byScopes = new Map<string, ScopeListing>();
/** Distinct scope sets kept; past it the map starts again (tokens hold few distinct sets). */
const BY_SCOPES_MAX = 1000;

export function scopeListing(scopes: readonly string[]): ScopeListing {
  // Scope tokens never contain a space (RFC 6749, 3.3).
  const key = scopes.join(' ');
  let listing = byScopes.get(key);
  if (listing === undefined) {
    const endpoints = endpointsForScopes(scopes);
    listing = { expanded: expandScopes(scopes), endpoints, endpointsJson: JSON.stringify(endpoints) };
    if (byScopes.size >= BY_SCOPES_MAX) byScopes.clear();
    byScopes.set(key, listing);
  }
  return listing;
}
