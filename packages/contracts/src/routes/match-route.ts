/**
 * Finds the route of a request and the scope it needs. Precompiled once: static paths are one map
 * lookup, the few parameterised paths one regular expression each. Trailing slashes are matched
 * as sent (only the index has both forms, as two table entries). HEAD is answered by the GET
 * route. Parameters are decoded and refused when they would smuggle a path through
 * percent-encoding; the rest-of-path parameter stays encoded because it is forwarded as is.
 */
import type { Access } from '../connectors/connector-access.ts';
import { accessOf, operationResource } from '../connectors/connector-access.ts';
import { SCOPE_NAME_PATTERN } from '../scopes/scope-grammar.ts';
import { type CompiledPath, compilePath, decodeSegment, isSafeRestOfPath } from './route-path.ts';
import { RouteTable } from './route-table.ts';
import { HTTP_METHODS, type RouteDefinition } from './route-types.ts';

export type RouteParams = Readonly<Record<string, string>>;
export interface RouteMatch {
  readonly route: RouteDefinition;
  readonly params: RouteParams;
}
export interface MethodMismatch {
  /** Methods the path accepts, for the Allow header. */
  readonly methodMismatch: readonly string[];
}

interface PathGroup {
  readonly compiled: CompiledPath;
  readonly byMethod: ReadonlyMap<string, RouteDefinition>;
  readonly allowed: readonly string[];
  /** Any route of the group: they share the path and so its parameter patterns. */
  readonly sample: RouteDefinition;
}

function buildGroups(routes: readonly RouteDefinition[]): PathGroup[] {
  const byPath = new Map<string, RouteDefinition[]>();
  for (const route of routes) byPath.set(route.pattern, [...(byPath.get(route.pattern) ?? []), route]);
  return [...byPath.entries()].map(([path, group]) => {
    const byMethod = new Map(group.map((route) => [route.method, route]));
    const allowed = HTTP_METHODS.filter((method) => byMethod.has(method));
    return {
      compiled: compilePath(path),
      byMethod,
      allowed: byMethod.has('GET') ? [...allowed, 'HEAD'] : allowed,
      sample: group[0]!,
    };
  });
}

function decodeParams(group: PathGroup, raw: Record<string, string>): RouteParams | null {
  const params: Record<string, string> = {};
  for (const name of group.compiled.paramNames) {
    const value = decodeSegment(raw[name] ?? '');
    const pattern = group.sample.paramPatterns[name];
    if (value === null || (pattern !== undefined && !pattern.test(value))) return null;
    params[name] = value;
  }
  const rest = group.compiled.wildcard;
  if (rest !== null) {
    const value = raw[rest] ?? '';
    if (!isSafeRestOfPath(value)) return null;
    params[rest] = value;
  }
  return params;
}

function choose(group: PathGroup, method: string, params: RouteParams): RouteMatch | MethodMismatch {
  const route = group.byMethod.get(method === 'HEAD' ? 'GET' : method);
  return route === undefined ? { methodMismatch: group.allowed } : { route, params };
}

/** Builds a matcher over any route list (the table by default). */
export function createRouteMatcher(routes: readonly RouteDefinition[] = RouteTable) {
  const groups = buildGroups(routes);
  const staticGroups = new Map(groups.filter((g) => g.compiled.isStatic).map((g) => [g.compiled.pattern, g]));
  const dynamicGroups = groups.filter((g) => !g.compiled.isStatic);

  return function matchRoute(method: string, path: string): RouteMatch | MethodMismatch | null {
    const query = path.indexOf('?');
    const pathname = query === -1 ? path : path.slice(0, query);
    const exact = staticGroups.get(pathname);
    if (exact !== undefined) return choose(exact, method, {});
    for (const group of dynamicGroups) {
      const raw = group.compiled.match(pathname);
      if (raw === null) continue;
      const params = decodeParams(group, raw);
      if (params !== null) return choose(group, method, params);
    }
    return null;
  };
}

/**
 * The route and decoded parameters of a request; `{ methodMismatch }` when the path exists with
 * other methods (405 with Allow); null when no route has this path (404 ROUTE_NOT_FOUND).
 * `path` is the request target; a query string is ignored.
 */
export const matchRoute = createRouteMatcher();

/** The first segment of a rest-of-path when it is a valid resource name (for sub-scopes). */
export function resourceOf(restOfPath: string | undefined): string | null {
  if (restOfPath === undefined) return null;
  const first = decodeSegment(restOfPath.split('/')[0] ?? '');
  return first !== null && SCOPE_NAME_PATTERN.test(first) ? first : null;
}

/**
 * Whether the route's `{access}` is known from its method alone: write for every method but GET;
 * read for GET unless a connector decides (then null: some GETs write, e.g. Slack's chat.postMessage).
 */
export function accessByMethod(route: RouteDefinition): Access | null {
  if (route.method !== 'GET') return 'write';
  return route.access === 'connector' ? null : 'read';
}

/** The route's scope as documents show it: `{access}` resolved when the method alone decides it. */
export function documentedScope(route: RouteDefinition): string | null {
  const access = accessByMethod(route);
  return access === null ? route.scope : (route.scope?.replaceAll('{access}', access) ?? null);
}

const wildcards = new WeakMap<RouteDefinition, string | null>();

function restOfPathOf(route: RouteDefinition, params: RouteParams): string | undefined {
  let name = wildcards.get(route);
  if (name === undefined) {
    name = compilePath(route.pattern).wildcard;
    wildcards.set(route, name);
  }
  return name === null ? undefined : params[name];
}

/**
 * The sub-scope resource of a request: an operation its connector lists names its own (Google
 * Calendar's POST freeBusy is `freebusy`), else the first segment of the rest of the path.
 */
function resourceFor(route: RouteDefinition, params: RouteParams, method: string): string | null {
  const rest = restOfPathOf(route, params);
  if (route.access === 'connector' && rest !== undefined) {
    const listed = operationResource(params.service ?? '', method, rest);
    if (listed !== undefined) return listed;
  }
  return resourceOf(rest);
}

/** Read or write for this request: by its method, or as the connector of a proxy route classifies it. */
function requestAccess(route: RouteDefinition, params: RouteParams, method: string): Access {
  if (route.access === 'connector') {
    return accessOf(params.service ?? '', method, restOfPathOf(route, params) ?? '');
  }
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write';
}

/**
 * The concrete scope a matched request needs, or null when any valid token (or none) will do.
 * Fills the route's template: `{access}` from the method or the connector (the route's `access`),
 * `{resource}` from the rest-of-path (dropped with its colon when absent), any other `{name}` from
 * the path parameters.
 */
export function requiredScope(
  route: RouteDefinition,
  params: RouteParams,
  method: string = route.method,
): string | null {
  if (route.scope === null) return null;
  let scope = '';
  for (const part of scopeTemplateOf(route, route.scope)) {
    if (typeof part === 'string') {
      scope += part;
      continue;
    }
    const { colon, name } = part;
    if (name === 'access') scope += `${colon}${requestAccess(route, params, method)}`;
    else if (name === 'resource') {
      const resource = resourceFor(route, params, method);
      if (resource !== null) scope += `${colon}${resource}`;
    } else {
      const value = params[name];
      if (value === undefined) throw new Error(`Route ${route.id} has no parameter ${name} for its scope`);
      scope += `${colon}${value}`;
    }
  }
  return scope;
}

/** A scope template's text between its `{name}`s, and each name with the colon before it. */
type ScopeTemplate = ReadonlyArray<string | { readonly colon: string; readonly name: string }>;

const scopeTemplates = new WeakMap<RouteDefinition, ScopeTemplate>();

/**
 * The route's scope template split once (every request of every route asks for its scope, and a
 * replace with a callback over the template per request was a visible share of the proxied
 * call's profile: docs/adr/0074).
 */
function scopeTemplateOf(route: RouteDefinition, template: string): ScopeTemplate {
  let parts = scopeTemplates.get(route);
  if (parts === undefined) {
    const split: Array<string | { colon: string; name: string }> = [];
    let last = 0;
    for (const found of template.matchAll(/(:?)\{(\w+)\}/g)) {
      if (found.index > last) split.push(template.slice(last, found.index));
      split.push({ colon: found[1] ?? '', name: found[2] ?? '' });
      last = found.index + found[0].length;
    }
    if (last < template.length) split.push(template.slice(last));
    parts = split;
    scopeTemplates.set(route, parts);
  }
  return parts;
}
