/**
 * The scope grammar: which strings are scopes at all. Anything outside it is rejected when a
 * token is issued (INVALID_SCOPE) and grants nothing if it ever shows up on a token.
 *
 *   full | knowledge | chat | read | professional | availability
 *   services:*                          read and write on every service
 *   services:read                       read on every service
 *   services:{name}:read|write          one service
 *   services:{name}:{resource}:read|write  one resource of one service (per-resource sub-scope)
 *
 * Names are lowercase `[a-z0-9][a-z0-9_-]*`, at most 64 characters. Matching is case-sensitive:
 * `Full` or `services:GitHub:read` are not scopes. `*` appears only in `services:*`; patterns such
 * as `services:*:read` are display notation (see expandScopes), not grantable scopes.
 */
import { AppError } from '../errors.ts';

/** A service or resource name: lowercase, starts with a letter or digit. */
export const SCOPE_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export const NAMED_SCOPES = ['full', 'knowledge', 'chat', 'read', 'professional', 'availability'] as const;
export type NamedScope = (typeof NAMED_SCOPES)[number];

export type ScopeAccess = 'read' | 'write';

export type ParsedScope =
  | { readonly scope: string; readonly kind: NamedScope }
  | {
      readonly scope: string;
      readonly kind: 'services';
      /** null: every service. */
      readonly service: string | null;
      /** null: every resource of the service (or of every service). */
      readonly resource: string | null;
      /** null: read and write (only `services:*`). */
      readonly access: ScopeAccess | null;
    };

const MAX_SCOPE_LENGTH = 200;

function isNamedScope(value: string): value is NamedScope {
  return (NAMED_SCOPES as readonly string[]).includes(value);
}

function isAccess(value: string | undefined): value is ScopeAccess {
  return value === 'read' || value === 'write';
}

function isName(value: string | undefined): value is string {
  return value !== undefined && SCOPE_NAME_PATTERN.test(value);
}

/** Parses without throwing: null when the string is not in the grammar. */
export function tryParseScope(scope: string): ParsedScope | null {
  if (typeof scope !== 'string' || scope.length === 0 || scope.length > MAX_SCOPE_LENGTH) return null;
  if (isNamedScope(scope)) return { scope, kind: scope };
  const parts = scope.split(':');
  if (parts[0] !== 'services') return null;
  const [, a, b, c] = parts;
  switch (parts.length) {
    case 2:
      if (a === '*') return { scope, kind: 'services', service: null, resource: null, access: null };
      if (a === 'read') return { scope, kind: 'services', service: null, resource: null, access: 'read' };
      return null;
    case 3:
      return isName(a) && isAccess(b)
        ? { scope, kind: 'services', service: a, resource: null, access: b }
        : null;
    case 4:
      return isName(a) && isName(b) && isAccess(c)
        ? { scope, kind: 'services', service: a, resource: b, access: c }
        : null;
    default:
      return null;
  }
}

export function isScope(scope: string): boolean {
  return tryParseScope(scope) !== null;
}

/** Validates one scope; throws INVALID_SCOPE naming it when it is outside the grammar. */
export function parseScope(scope: string): ParsedScope {
  const parsed = tryParseScope(scope);
  if (parsed === null) {
    throw new AppError('INVALID_SCOPE', `"${String(scope).slice(0, MAX_SCOPE_LENGTH)}" is not a scope.`);
  }
  return parsed;
}

/**
 * Parses an OAuth `scope` parameter (RFC 6749 §3.3: space-separated, order irrelevant).
 * Returns the distinct scopes in first-seen order; throws INVALID_SCOPE naming every bad entry.
 */
export function parseScopeList(list: string): string[] {
  const entries = list.split(' ').filter((entry) => entry.length > 0);
  const invalid = entries.filter((entry) => !isScope(entry));
  if (invalid.length > 0) {
    const named = invalid.map((entry) => `"${entry.slice(0, MAX_SCOPE_LENGTH)}"`).join(', ');
    throw new AppError('INVALID_SCOPE', `Not scopes: ${named}.`);
  }
  return [...new Set(entries)];
}
