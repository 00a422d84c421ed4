/**
 * The create-token form of /dashboard/tokens: the scopes it offers (from the scope catalogue, with
 * their meaning) and how a submitted form becomes a new agent's fields. Pure: no I/O.
 *
 * What it enforces here (AgentStore.createAgent checks the rest: name, scope grammar, limit
 * ranges, expiry in the future): service names are scope names; naming services without read or
 * write, or read/write without a service, is a mistake named as such; an expiry is a calendar date.
 *
 * Each checkbox has its own field name: formFields reads a repeated name as absent.
 */
import { AppError, isScopeName, ScopeCatalogue } from '@pag/contracts';

export interface ScopeChoice {
  scope: string;
  /** The form field and element id of its checkbox. */
  field: string;
  description: string;
}

/** Every catalogue scope that needs no service name, as a checkbox. */
export const SCOPE_CHOICES: readonly ScopeChoice[] = Object.entries(ScopeCatalogue)
  .filter(([scope]) => !scope.includes('{'))
  .map(([scope, entry]) => ({
    scope,
    field: `scope-${scope.replace('*', 'all').replaceAll(':', '-')}`,
    description: entry.description,
  }));

/** What the owner typed, kept to fill the form again after a mistake. */
export interface TokenFormValues {
  name: string;
  /** The checked scopes of SCOPE_CHOICES. */
  scopes: string[];
  /** Service names separated by spaces or commas. */
  services: string;
  /** Optional: one resource of those services. */
  resource: string;
  serviceRead: boolean;
  serviceWrite: boolean;
  daily: string;
  monthly: string;
  /** YYYY-MM-DD, or empty. */
  expires: string;
}

export const EMPTY_TOKEN_FORM: TokenFormValues = {
  name: '',
  scopes: [],
  services: '',
  resource: '',
  serviceRead: false,
  serviceWrite: false,
  daily: '',
  monthly: '',
  expires: '',
};

export interface TokenRequest {
  name: string;
  scopes: string[];
  dailyLimit: number | null;
  monthlyLimit: number | null;
  expiresAt: Date | null;
}

export function readTokenForm(form: Record<string, string>): TokenFormValues {
  const text = (field: string) => form[field] ?? '';
  return {
    name: text('name'),
    scopes: SCOPE_CHOICES.filter((choice) => form[choice.field] !== undefined).map((choice) => choice.scope),
    services: text('services'),
    resource: text('resource'),
    serviceRead: form['service-read'] !== undefined,
    serviceWrite: form['service-write'] !== undefined,
    daily: text('daily'),
    monthly: text('monthly'),
    expires: text('expires'),
  };
}

/**
 * The end of a calendar day (YYYY-MM-DD) in UTC: a token "expiring on" a day works through it.
 * Empty: no expiry (null). Anything else than a real date is refused, naming the field.
 */
export function endOfDay(text: string, field = 'The expiry'): Date | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(trimmed);
  const [year, month, day] = (match?.slice(1) ?? []).map(Number);
  if (year === undefined || month === undefined || day === undefined)
    throw new AppError('INVALID_REQUEST', `${field} must be a date written YYYY-MM-DD.`);
  const start = new Date(Date.UTC(year, month - 1, day));
  if (start.getUTCFullYear() !== year || start.getUTCMonth() !== month - 1 || start.getUTCDate() !== day)
    throw new AppError('INVALID_REQUEST', `${field} must be a date written YYYY-MM-DD.`);
  return new Date(Date.UTC(year, month - 1, day + 1));
}

/** A whole number, or NaN for AgentStore to refuse with its message; empty: no limit. */
function limit(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  return /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
}

function serviceScopes(values: TokenFormValues): string[] {
  const names = values.services.split(/[\s,]+/).filter((name) => name !== '');
  const resource = values.resource.trim();
  const access = [values.serviceRead && 'read', values.serviceWrite && 'write'].filter(
    (word): word is string => word !== false,
  );
  if (names.length === 0) {
    if (access.length > 0 || resource !== '')
      throw new AppError('INVALID_REQUEST', 'Name the connected service the read or write access is for.');
    return [];
  }
  for (const name of [...names, ...(resource === '' ? [] : [resource])])
    if (!isScopeName(name))
      throw new AppError(
        'INVALID_REQUEST',
        `"${name}" is not a service or resource name: lowercase letters, digits, - and _, starting with a letter or digit.`,
      );
  if (access.length === 0)
    throw new AppError('INVALID_REQUEST', 'Choose read, write or both for the services you named.');
  const within = resource === '' ? '' : `:${resource}`;
  return names.flatMap((name) => access.map((word) => `services:${name}${within}:${word}`));
}

/** The new agent's fields; throws AppError('INVALID_REQUEST') naming the field at fault. */
export function tokenRequest(values: TokenFormValues): TokenRequest {
  return {
    name: values.name,
    scopes: [...values.scopes, ...serviceScopes(values)],
    dailyLimit: limit(values.daily),
    monthlyLimit: limit(values.monthly),
    expiresAt: endOfDay(values.expires),
  };
}
