/**
 * What each scope means, in one table: the plain-English line shown by the discovery documents,
 * the OpenAPI document and the consent screen, and the permissions it grants.
 *
 * Grants are written as permission patterns: `knowledge`, `chat`, `*` (everything) and
 * `services:{service}:{resource}:{read|write}` where `*` stands for every name.
 *
 * Our decisions (the spec names `read`, `professional` and `availability` without defining them;
 * they are the scopes an agent may ask for in a handshake):
 * - `read`: read-only access to the owner's data: the knowledge base and every connected service,
 *   read only. No chat, no writes.
 * - `professional`: the owner's professional profile: the profile resources of the connectors
 *   that have one (GitHub `user`, Microsoft 365 `profile`, Slack `profile`), read only.
 * - `availability`: when the owner is busy: the free/busy resources of the calendars (Google
 *   Calendar `freebusy`, Microsoft 365 `schedule`), read only.
 *   Both lists are connectors/scope-sets.ts, checked against the connector catalogue by a test.
 * Write never implies read: `services:{name}:write` lets an agent change data it may not read.
 */
import { scopeSetGrants } from '../connectors/scope-sets.ts';
import { SCOPE_NAME_PATTERN, tryParseScope } from './scope-grammar.ts';

interface CatalogueEntry {
  readonly description: string;
  /** Permission patterns granted; names in braces are filled from the concrete scope. */
  readonly grants: readonly string[];
}

/** Every top-level scope and scope template, in display order. */
export const ScopeCatalogue = {
  full: {
    description: 'Everything the owner can do through the gateway: every scope below, read and write.',
    grants: ['*'],
  },
  knowledge: {
    description: "Read the owner's knowledge base (identity, preferences, skills and similar documents).",
    grants: ['knowledge'],
  },
  chat: {
    description: "Chat with the owner's AI brain.",
    grants: ['chat'],
  },
  read: {
    description:
      "Read-only access to the owner's data: the knowledge base and every connected service; no chat, no writes.",
    grants: ['knowledge', 'services:*:*:read'],
  },
  professional: {
    description:
      "Read the owner's professional profile: the GitHub user, the Microsoft 365 profile and the Slack profile.",
    grants: scopeSetGrants('professional'),
  },
  availability: {
    description:
      "Read when the owner is busy: Google Calendar's free/busy query and Microsoft 365's schedule query, not the events.",
    grants: scopeSetGrants('availability'),
  },
  'services:*': {
    description: 'Read and write every connected service.',
    grants: ['services:*:*:read', 'services:*:*:write'],
  },
  'services:read': {
    description: 'Read every connected service; no writes.',
    grants: ['services:*:*:read'],
  },
  'services:{name}:read': {
    description: 'Read the connected service {name}, all of its resources.',
    grants: ['services:{name}:*:read'],
  },
  'services:{name}:write': {
    description:
      'Create, change and delete data in the connected service {name}; does not include reading it.',
    grants: ['services:{name}:*:write'],
  },
  'services:{name}:{resource}:read': {
    description: 'Read the {resource} resource of the connected service {name}.',
    grants: ['services:{name}:{resource}:read'],
  },
  'services:{name}:{resource}:write': {
    description:
      'Create, change and delete {resource} data in the connected service {name}; does not include reading it.',
    grants: ['services:{name}:{resource}:write'],
  },
} as const satisfies Record<string, CatalogueEntry>;

export type CatalogueScope = keyof typeof ScopeCatalogue;

/** The scopes an agent may request in a handshake (the spec's enumeration). */
export const HANDSHAKE_SCOPES = ['read', 'professional', 'availability'] as const;
export type HandshakeScope = (typeof HANDSHAKE_SCOPES)[number];

interface ResolvedEntry {
  readonly description: string;
  readonly grants: readonly string[];
}

function fill(text: string, name: string, resource: string): string {
  return text.replaceAll('{name}', name).replaceAll('{resource}', resource);
}

/** The catalogue entry of a concrete scope with its names filled in; null when not a scope. */
export function catalogueEntry(scope: string): ResolvedEntry | null {
  const parsed = tryParseScope(scope);
  if (parsed === null) return null;
  if (parsed.kind !== 'services' || parsed.service === null) {
    return ScopeCatalogue[scope as CatalogueScope];
  }
  const template: CatalogueScope =
    parsed.resource === null
      ? `services:{name}:${parsed.access ?? 'read'}`
      : `services:{name}:{resource}:${parsed.access ?? 'read'}`;
  const entry = ScopeCatalogue[template];
  const resource = parsed.resource ?? '';
  return {
    description: fill(entry.description, parsed.service, resource),
    grants: entry.grants.map((grant) => fill(grant, parsed.service ?? '', resource)),
  };
}

/** One line of plain English for a concrete scope (consent screen, capability listings). */
export function describeScope(scope: string): string | null {
  return catalogueEntry(scope)?.description ?? null;
}

/** Whether a string is a valid service or resource name in scopes and proxy paths. */
export function isScopeName(value: string): boolean {
  return SCOPE_NAME_PATTERN.test(value);
}
