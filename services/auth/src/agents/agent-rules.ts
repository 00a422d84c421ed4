/**
 * The rules every agent follows, whoever makes it (dashboard, CLI, handshake, device, OAuth
 * consent), that need no database: its id, its name (contracts' displayName), its scopes and its
 * limits.
 */
import { randomBytes } from 'node:crypto';
import { AppError, displayName, isScope } from '@pag/contracts';

/** A token "without expiry" lives this long (oidc-provider needs a lifetime; ten years is past any use). */
export const NO_EXPIRY_SECONDS = 10 * 365 * 24 * 3600;

const LIMIT_MAX = 100_000_000;
export const NAME_MAX = 100;

/** Where an agent stands now: a stored `active` agent past its expiry is expired. */
export type AgentStanding = 'active' | 'revoked' | 'expired';

/**
 * The one reading of an agent's state, for introspection, handshake status, the dashboard and the
 * trigger service's grant: revoked wins; an expiry at or before `now` has passed.
 */
export function agentStanding(
  agent: { status: string; expiresAt: Date | null },
  now: Date = new Date(),
): AgentStanding {
  if (agent.status === 'revoked') return 'revoked';
  if (agent.expiresAt !== null && agent.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString('base64url')}`;
}

export function checkLimit(value: number | null | undefined, field: string): number | null {
  if (value === undefined || value === null) return null;
  if (!Number.isInteger(value) || value < 1 || value > LIMIT_MAX)
    throw new AppError('INVALID_REQUEST', `${field} must be a whole number from 1 to ${LIMIT_MAX}.`, {
      hint: 'Leave it empty for no limit.',
    });
  return value;
}

/** The scopes of a new agent: at least one, each in the scope grammar, each once. */
export function checkScopes(scopes: string[]): string[] {
  const unique = [...new Set(scopes.map((scope) => scope.trim()).filter((scope) => scope !== ''))];
  if (unique.length === 0)
    throw new AppError('INVALID_REQUEST', 'Choose at least one scope.', {
      hint: 'GET /api/v1/capabilities lists every scope and what it grants.',
    });
  const unknown = unique.find((scope) => !isScope(scope));
  if (unknown !== undefined)
    throw new AppError('INVALID_REQUEST', `"${unknown}" is not a scope.`, {
      hint: 'GET /api/v1/capabilities lists every scope and what it grants.',
    });
  return unique;
}

const AgentName = displayName(NAME_MAX);

/** The one rule for names (contracts' displayName), whoever names the agent: dashboard, CLI, API. */
export function checkName(name: string): string {
  const checked = AgentName.safeParse(name);
  if (!checked.success)
    throw new AppError('INVALID_REQUEST', `The name ${checked.error.issues[0]?.message ?? 'is not valid'}.`);
  return checked.data;
}
