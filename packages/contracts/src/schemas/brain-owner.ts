/**
 * The owner's side of the brain: what the dashboard (the auth service, over the bus) and `pag`
 * send to read and change personas, the knowledge base, the identity, memory and the owner's own
 * language-model provider. Every message names the signed-in owner's account; the brain reads and
 * changes only that account's rows.
 */
import { z } from 'zod';
import {
  BRAIN_PAGE_MAX,
  Identity,
  KNOWLEDGE_MAX_BYTES,
  KnowledgeDocument,
  KnowledgeKind,
  MemoryEntry,
} from './brain.ts';
import {
  boundedText,
  displayName,
  plainText,
  ResourceId,
  storableString,
  Timestamp,
  TimeZone,
} from './common.ts';

/** A persona's instructions (markdown), at most 32 KiB of UTF-8. */
export const SOUL_CONTENT_MAX_BYTES = 32 * 1024;

const Account = z.uuid().describe('The signed-in owner’s account.');

/** A BCP 47 language tag as Intl understands it (en, en-GB, pt-BR, zh-Hant-TW). */
export function isLocale(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

export const Locale = z
  .string()
  .min(2)
  .max(35)
  .refine(isLocale, { message: 'Must be a BCP 47 language tag such as en-GB or de.' })
  .describe('A BCP 47 language tag.')
  .meta({ examples: ['en-GB'] });

export const AccountOnly = z.object({ accountId: Account });
export type AccountOnly = z.infer<typeof AccountOnly>;

export const AccountItem = z.object({ accountId: Account, id: ResourceId });
export type AccountItem = z.infer<typeof AccountItem>;

export const Deleted = z.object({ id: z.string(), deleted: z.literal(true) });
export type Deleted = z.infer<typeof Deleted>;

// Personas ---------------------------------------------------------------------------------

export const OwnerPersona = z.object({
  id: ResourceId,
  name: z.string(),
  description: z.string().nullable(),
  soul_content: z.string(),
  isDefault: z.boolean().describe('Applies to every agent without a persona of its own.'),
  agents: z.array(z.string()).describe('Agents (ids) this persona is assigned to.'),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type OwnerPersona = z.infer<typeof OwnerPersona>;

export const OwnerPersonaList = z.object({ personas: z.array(OwnerPersona).describe('Oldest first.') });
export type OwnerPersonaList = z.infer<typeof OwnerPersonaList>;

/**
 * Creates a persona (no id) or changes one (id). Names are unique per account (409 otherwise).
 * makeDefault: true makes it the default (the previous default stays, as an ordinary persona).
 */
export const PersonaSave = z
  .object({
    accountId: Account,
    id: ResourceId.optional(),
    name: displayName(80),
    description: plainText(500).nullable().optional(),
    soul_content: boundedText(SOUL_CONTENT_MAX_BYTES),
    makeDefault: z.boolean().optional(),
  })
  .strict();
export type PersonaSave = z.infer<typeof PersonaSave>;

/** Gives an agent a persona of its own; personaId null: the agent follows the default again. */
export const PersonaAssign = z
  .object({ accountId: Account, agentId: z.string().min(1).max(200), personaId: ResourceId.nullable() })
  .strict();
export type PersonaAssign = z.infer<typeof PersonaAssign>;

export const PersonaAssigned = z.object({ agentId: z.string(), personaId: ResourceId.nullable() });
export type PersonaAssigned = z.infer<typeof PersonaAssigned>;

// Knowledge --------------------------------------------------------------------------------

/** Creates a document (no id) or replaces one's title, kind and content (id). */
export const KnowledgeSave = z
  .object({
    accountId: Account,
    id: ResourceId.optional(),
    title: displayName(200),
    kind: KnowledgeKind,
    content: boundedText(KNOWLEDGE_MAX_BYTES),
  })
  .strict();
export type KnowledgeSave = z.infer<typeof KnowledgeSave>;

/** The owner's knowledge base, as the agent route pages it (same search, same cursor). */
export const OwnerKnowledgeQuery = z
  .object({
    accountId: Account,
    q: z.string().trim().min(1).max(500).optional(),
    limit: z.number().int().min(1).max(BRAIN_PAGE_MAX),
    cursor: z.string().min(1).max(200).optional(),
  })
  .strict();
export type OwnerKnowledgeQuery = z.infer<typeof OwnerKnowledgeQuery>;

export const OwnerKnowledgeDocument = KnowledgeDocument;

// Identity ---------------------------------------------------------------------------------

/** Changes only the fields given; null clears an optional field. */
export const IdentitySet = z
  .object({
    accountId: Account,
    name: displayName(100).optional(),
    timezone: TimeZone.nullable().optional(),
    locale: Locale.nullable().optional(),
    summary: plainText(2000).nullable().optional(),
  })
  .strict();
export type IdentitySet = z.infer<typeof IdentitySet>;

export const OwnerIdentity = Identity;

// Memory -----------------------------------------------------------------------------------

/**
 * The owner's memory, newest first; with q, full-text matches (best first). agentId narrows to
 * one agent's entries ("" for entries written without an agent). before: the nextBefore of the
 * previous page.
 */
export const OwnerMemoryQuery = z
  .object({
    accountId: Account,
    q: z.string().trim().min(1).max(500).optional(),
    agentId: z.string().max(200).optional(),
    limit: z.number().int().min(1).max(BRAIN_PAGE_MAX),
    cursor: z.string().min(1).max(200).optional(),
  })
  .strict();
export type OwnerMemoryQuery = z.infer<typeof OwnerMemoryQuery>;

export const OwnerMemoryPage = z.object({
  entries: z.array(
    MemoryEntry.extend({
      highlight: z.string().optional().describe('With q: the matching passage, matches between « and ».'),
    }),
  ),
  nextCursor: z.string().nullable(),
  total: z.number().int().min(0).describe('Every memory entry of the owner (not only the matches).'),
});
export type OwnerMemoryPage = z.infer<typeof OwnerMemoryPage>;

/** Deletes every entry one agent wrote (agentId null: the entries written without an agent). */
export const MemoryClear = z
  .object({ accountId: Account, agentId: z.string().min(1).max(200).nullable() })
  .strict();
export type MemoryClear = z.infer<typeof MemoryClear>;

export const MemoryCleared = z.object({ deleted: z.number().int().min(0) });
export type MemoryCleared = z.infer<typeof MemoryCleared>;

// The owner's language-model provider ------------------------------------------------------

/**
 * Which provider answers the owner's chat: the owner's own (set on the dashboard), else the
 * deployment's (CHAT_* configuration), else none (the offline brain). The key is never shown.
 */
export const ProviderSettings = z.object({
  source: z.enum(['owner', 'deployment', 'none']),
  baseUrl: z.string().nullable(),
  model: z.string().nullable(),
  hasApiKey: z.boolean(),
  updatedAt: Timestamp.nullable().describe('When the owner last set their own; null otherwise.'),
});
export type ProviderSettings = z.infer<typeof ProviderSettings>;

/**
 * Sets the owner's own OpenAI-compatible provider. apiKey: a new key; omitted keeps the stored
 * one (so a form need not show it); null stores none (a local server without keys).
 */
export const ProviderSet = z
  .object({
    accountId: Account,
    baseUrl: z
      .url({ protocol: /^https?$/ })
      .max(500)
      .describe(
        'The OpenAI-compatible API base, e.g. https://api.example.com/v1 or http://127.0.0.1:11434/v1.',
      ),
    model: plainText(200),
    apiKey: storableString().min(1).max(4000).nullable().optional(),
  })
  .strict();
export type ProviderSet = z.infer<typeof ProviderSet>;
