/**
 * The hierarchical scope matcher every service uses to decide whether a token may do something.
 *
 * Each scope stands for a set of permissions (ScopeCatalogue's `grants`); a token satisfies a
 * required scope when every permission of the required scope is covered by a permission of one of
 * its granted scopes. Hence: `full` contains everything; `services:*` contains
 * `services:{name}:read|write` of every service; `services:{name}:read` contains the service's
 * read sub-scopes `services:{name}:{resource}:read` (likewise write); `services:read` reads every
 * service but writes none; write never implies read; a sub-scope never implies its parent.
 * Granted strings outside the grammar grant nothing; a malformed required scope is never granted
 * (fail closed).
 */
import { AppError } from '../errors.ts';
import { type CatalogueScope, catalogueEntry, ScopeCatalogue } from './scope-catalogue.ts';

/** A permission pattern; `*` in service or resource stands for every name. */
type Permission =
  | { readonly kind: 'all' }
  | { readonly kind: 'feature'; readonly name: string }
  | {
      readonly kind: 'service';
      readonly service: string;
      readonly resource: string;
      readonly access: string;
    };

function toPermission(pattern: string): Permission {
  if (pattern === '*') return { kind: 'all' };
  const parts = pattern.split(':');
  if (parts.length === 4 && parts[0] === 'services') {
    return { kind: 'service', service: parts[1]!, resource: parts[2]!, access: parts[3]! };
  }
  return { kind: 'feature', name: pattern };
}

/**
 * The permissions of each scope string seen lately. Every check of every request parsed its
 * token's scopes and the required one again (a catalogue entry with its description filled in,
 * split, mapped: docs/adr/0074); the answer depends on the string alone. Scope strings name
 * services and resources from request paths, so the memory is bounded: past PERMISSIONS_KEPT
 * entries it starts again empty.
 */
const permissionsByScope = new Map<string, readonly Permission[] | null>();
const PERMISSIONS_KEPT = 2_000;

function permissionsOf(scope: string): readonly Permission[] | null {
  let permissions = permissionsByScope.get(scope);
  if (permissions === undefined) {
    permissions = catalogueEntry(scope)?.grants.map(toPermission) ?? null;
    if (permissionsByScope.size >= PERMISSIONS_KEPT) permissionsByScope.clear();
    permissionsByScope.set(scope, permissions);
  }
  return permissions;
}

function covers(granted: Permission, required: Permission): boolean {
  if (granted.kind === 'all') return true;
  if (granted.kind === 'feature') return required.kind === 'feature' && required.name === granted.name;
  return (
    required.kind === 'service' &&
    granted.access === required.access &&
    (granted.service === '*' || granted.service === required.service) &&
    (granted.resource === '*' || granted.resource === required.resource)
  );
}

function grantedPermissions(granted: readonly string[]): Permission[] {
  return granted.flatMap((scope) => permissionsOf(scope) ?? []);
}

function covered(held: readonly Permission[], required: string): boolean {
  const needed = permissionsOf(required);
  if (needed === null) return false;
  return needed.every((permission) => held.some((have) => covers(have, permission)));
}

/** Whether the granted scopes together include the required scope. */
export function scopeGrants(granted: readonly string[], required: string): boolean {
  const needed = permissionsOf(required);
  if (needed === null) return false;
  // Each needed permission against each granted scope's, without a list of them all per call.
  return needed.every((permission) =>
    granted.some((scope) => permissionsOf(scope)?.some((have) => covers(have, permission)) ?? false),
  );
}

/**
 * The first required scope the granted scopes do not include, or null when all are included
 * (or nothing is required). For error messages: "this needs services:github:read".
 */
export function missingScope(
  granted: readonly string[],
  required: string | readonly string[] | null,
): string | null {
  if (required === null) return null;
  const held = grantedPermissions(granted);
  const list = typeof required === 'string' ? [required] : required;
  return list.find((scope) => !covered(held, scope)) ?? null;
}

/**
 * The 403 of a token without the scope a route needs, worded once for every server that checks
 * it (the gateway's HTTP pipeline, a service re-checking a bus message); `headers` carries an
 * HTTP server's WWW-Authenticate challenge.
 */
export function insufficientScope(scope: string, headers?: Record<string, string>): AppError {
  return new AppError(
    'INSUFFICIENT_SCOPE',
    `This endpoint needs the scope ${scope}, which the token does not grant.`,
    headers === undefined ? {} : { headers },
  );
}

type ServicePermission = Extract<Permission, { kind: 'service' }>;

function renderService(permission: ServicePermission): string[] {
  const { service, resource, access } = permission;
  if (resource === '*') return [`services:${service}:${access}`, `services:${service}:*:${access}`];
  return [`services:${service}:${resource}:${access}`];
}

function serviceOrder(a: string, b: string): number {
  // `*` sorts before names so the widest pattern comes first
  const [x, y] = [a.replaceAll('*', '\u0000'), b.replaceAll('*', '\u0000')];
  return x < y ? -1 : x > y ? 1 : 0;
}

const FIXED_SCOPES = (Object.keys(ScopeCatalogue) as CatalogueScope[]).filter(
  (scope) => !scope.includes('{'),
);
const ALL_SERVICES: ServicePermission[] = [
  { kind: 'service', service: '*', resource: '*', access: 'read' },
  { kind: 'service', service: '*', resource: '*', access: 'write' },
];

/**
 * Every scope the granted scopes imply, for display (capabilities, consent screen): the fixed
 * top-level scopes they include, then service scopes as patterns (`services:*:read`,
 * `services:github:*:read`). Strings outside the grammar are left out.
 */
export function expandScopes(granted: readonly string[]): string[] {
  const held = grantedPermissions(granted);
  const fixed = FIXED_SCOPES.filter((scope) => covered(held, scope));
  const servicePermissions = held.flatMap((permission): ServicePermission[] =>
    permission.kind === 'all' ? ALL_SERVICES : permission.kind === 'service' ? [permission] : [],
  );
  const patterns = new Set(servicePermissions.flatMap(renderService));
  for (const scope of fixed) patterns.delete(scope);
  return [...fixed, ...[...patterns].sort(serviceOrder)];
}
