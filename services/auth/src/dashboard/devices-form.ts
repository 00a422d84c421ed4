/**
 * The approve form of a device: the scopes it offers (every catalogue scope that needs no service
 * name, with its meaning; `read` checked by default: a device reads until the owner decides
 * otherwise), further scopes typed in (e.g. services:github:read) and the optional limits.
 * Pure: AgentStore.createAgent checks the scope grammar and the limit ranges, naming the field.
 *
 * Each checkbox has its own field name: formFields reads a repeated name as absent.
 */
import { ScopeCatalogue } from '@pag/contracts';

export interface DeviceScopeChoice {
  scope: string;
  /** The form field and element id of its checkbox. */
  field: string;
  description: string;
}

export const DEVICE_SCOPE_CHOICES: readonly DeviceScopeChoice[] = Object.entries(ScopeCatalogue)
  .filter(([scope]) => !scope.includes('{'))
  .map(([scope, entry]) => ({
    scope,
    field: `scope-${scope.replace('*', 'all').replaceAll(':', '-')}`,
    description: entry.description,
  }));

/** What a device gets unless the owner chooses otherwise: read-only access. */
export const DEFAULT_DEVICE_SCOPES: readonly string[] = ['read'];

/** What the owner typed, kept to fill the form again after a mistake. */
export interface ApproveFormValues {
  scopes: string[];
  /** Further scopes, separated by spaces or commas. */
  extra: string;
  daily: string;
  monthly: string;
}

export const DEFAULT_APPROVE_FORM: ApproveFormValues = {
  scopes: [...DEFAULT_DEVICE_SCOPES],
  extra: '',
  daily: '',
  monthly: '',
};

export function readApproveForm(form: Record<string, string>): ApproveFormValues {
  return {
    scopes: DEVICE_SCOPE_CHOICES.filter((choice) => form[choice.field] !== undefined).map(
      (choice) => choice.scope,
    ),
    extra: form.extra ?? '',
    daily: form.daily ?? '',
    monthly: form.monthly ?? '',
  };
}

/** A whole number, or NaN for AgentStore to refuse with its message; empty: no limit. */
export function limitOf(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  return /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
}

export function approvalOf(values: ApproveFormValues): {
  scopes: string[];
  dailyLimit: number | null;
  monthlyLimit: number | null;
} {
  const extra = values.extra.split(/[\s,]+/).filter((scope) => scope !== '');
  return {
    scopes: [...values.scopes, ...extra],
    dailyLimit: limitOf(values.daily),
    monthlyLimit: limitOf(values.monthly),
  };
}
