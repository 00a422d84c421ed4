/**
 * Bodies of the brain's endpoints: memory, knowledge base, chat, personas, identity, and the
 * gateway context that assembles them. The spec shows only some fields; every other field here
 * is our decision and says so in its description.
 */
import { z } from 'zod';
import { EndpointAccess } from './auth.ts';
import { boundedText, ResourceId, Timestamp } from './common.ts';
import { ConnectedService } from './proxy.ts';

export const MEMORY_MAX_BYTES = 64 * 1024;
export const CHAT_MESSAGE_MAX_BYTES = 16 * 1024;
/** A knowledge document's markdown (typed or uploaded), at most 256 KiB of UTF-8. */
export const KNOWLEDGE_MAX_BYTES = 256 * 1024;
/** Listing pages (knowledge base, memory, conversations): the default and the most per page. */
export const BRAIN_PAGE_DEFAULT = 20;
export const BRAIN_PAGE_MAX = 100;
/**
 * Chat replies may take a language model a while: the gateway waits this long for the brain
 * (instead of DISPATCH_TIMEOUT_MS); the brain's provider timeout stays below it.
 */
export const CHAT_ROUTE_TIMEOUT_MS = 120_000;
/** The context carries at most this many memory entries, the newest; older ones stay stored. */
export const CONTEXT_MEMORY_MAX = 200;
/**
 * ... and at most this much of their content in all (UTF-8 bytes), always at least the newest
 * entry (an entry is at most MEMORY_MAX_BYTES, so it fits): 200 entries of 64 KiB would be 12.5 MiB.
 */
export const CONTEXT_MEMORY_MAX_BYTES = 64 * 1024;
/** What the context's memory holds, as the descriptions say it. */
const CONTEXT_MEMORY_BOUND = `the newest entries, at most ${CONTEXT_MEMORY_MAX} and ${CONTEXT_MEMORY_MAX_BYTES / 1024} KiB of content; memoryCount counts all`;

export const MemoryWriteRequest = z
  .object({
    content: boundedText(MEMORY_MAX_BYTES)
      .describe('Freeform markdown, at most 64 KiB of UTF-8.')
      .meta({ examples: ['Alice prefers meetings after 10:00 and before 16:00 on weekdays.'] }),
  })
  .strict()
  .describe('A long-term memory note; it appears in the gateway context from then on.');
export type MemoryWriteRequest = z.infer<typeof MemoryWriteRequest>;

export const MemoryEntry = z
  .object({
    id: ResourceId,
    content: z.string(),
    agentId: z.string().nullable().describe('The agent that wrote it; null for a token without an agent.'),
    createdAt: Timestamp,
  })
  .describe('A memory entry as written and as listed in the context.');
export type MemoryEntry = z.infer<typeof MemoryEntry>;

export const MemoryDeleted = z
  .object({ id: ResourceId, deleted: z.literal(true) })
  .describe('The memory entry is gone (an agent deletes only entries it wrote).');
export type MemoryDeleted = z.infer<typeof MemoryDeleted>;

/**
 * The kinds the dashboard and `pag knowledge add` offer; a document may also carry another label
 * of the owner's (KnowledgeKind): lowercase letters, digits and "-", at most 40.
 */
export const KNOWLEDGE_KINDS = [
  'identity',
  'preferences',
  'skills',
  'projects',
  'contacts',
  'other',
] as const;
export const KnowledgeKind = z
  .string()
  .regex(
    /^[a-z][a-z0-9-]{0,39}$/,
    'A lowercase label: letters, digits and "-", starting with a letter, at most 40.',
  )
  .describe(`One of ${KNOWLEDGE_KINDS.join(', ')}, or another lowercase label of the owner's.`);

export const KnowledgeDocument = z
  .object({
    id: ResourceId,
    title: z.string(),
    kind: z.string().describe(`${KNOWLEDGE_KINDS.join(', ')} or another label the owner chose.`),
    content: z.string().describe('Markdown.'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    rank: z
      .number()
      .optional()
      .describe('With ?q=: how well the document matches (PostgreSQL ts_rank_cd; higher is better).'),
    highlight: z
      .string()
      .optional()
      .describe('With ?q=: the best-matching passage, matched words between « and » (ts_headline).'),
  })
  .describe('A document of the owner’s knowledge base.');
export type KnowledgeDocument = z.infer<typeof KnowledgeDocument>;

export const KnowledgeBase = z
  .object({
    documents: z.array(KnowledgeDocument),
    nextCursor: z.string().nullable().describe('Pass as ?cursor= for the next page; null on the last page.'),
  })
  .describe(
    `The owner's documents, most recently updated first, or with ?q= the best matches first; ?limit= 1..${BRAIN_PAGE_MAX} (default ${BRAIN_PAGE_DEFAULT}).`,
  );
export type KnowledgeBase = z.infer<typeof KnowledgeBase>;

/** GET /api/v1/brain/knowledge-base?q=&limit=&cursor= (all optional). */
export const KnowledgeQuery = z
  .object({
    q: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .optional()
      .describe('Full-text search (PostgreSQL, English stemming).'),
    limit: z.coerce.number().int().min(1).max(BRAIN_PAGE_MAX).optional(),
    cursor: z.string().min(1).max(200).optional(),
  })
  .strict();
export type KnowledgeQuery = z.infer<typeof KnowledgeQuery>;

const ConversationId = ResourceId.describe('Continue this conversation; omit to start a new one.').meta({
  examples: ['conv_8fK2mZ1q'],
});

export const ChatRequest = z
  .object({
    message: boundedText(CHAT_MESSAGE_MAX_BYTES)
      .describe('Your message to the brain, at most 16 KiB of UTF-8.')
      .meta({ examples: ['What does Alice want me to prepare for tomorrow’s meeting?'] }),
    conversationId: ConversationId.optional(),
  })
  .strict()
  .describe('A chat message; the agent’s persona instructions are applied automatically.');
export type ChatRequest = z.infer<typeof ChatRequest>;

export const ChatSources = z
  .object({
    knowledge: z.array(ResourceId).describe('Ids of the knowledge documents the reply drew on.'),
    memory: z.array(ResourceId).describe('Ids of the memory entries the reply drew on.'),
  })
  .describe('What was retrieved from the owner’s data and given to the model (or quoted offline).');
export type ChatSources = z.infer<typeof ChatSources>;

export const ChatUsage = z
  .object({ promptTokens: z.number().int().min(0), completionTokens: z.number().int().min(0) })
  .describe('Tokens the provider counted; null when it reports none (and for the offline brain).');
export type ChatUsage = z.infer<typeof ChatUsage>;

export const ChatReply = z
  .object({
    conversationId: ResourceId.describe('Send it back as conversationId to continue.'),
    reply: z.string().describe('Markdown.'),
    model: z
      .string()
      .describe(
        'The model that answered, as the provider named it; "offline" for the built-in offline brain.',
      ),
    provider: z
      .enum(['openai-compatible', 'offline'])
      .describe('Who answered: a configured OpenAI-compatible provider, or the built-in offline brain.'),
    sources: ChatSources,
    usage: ChatUsage.nullable(),
    createdAt: Timestamp,
  })
  .describe('The brain’s reply.');
export type ChatReply = z.infer<typeof ChatReply>;

export const ConversationMessage = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  model: z.string().nullable().describe('For a reply: the model that wrote it.'),
  sources: ChatSources.nullable().describe('For a reply: what it drew on.'),
  createdAt: Timestamp,
});
export type ConversationMessage = z.infer<typeof ConversationMessage>;

export const Conversation = z
  .object({
    id: ResourceId,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    messages: z.array(ConversationMessage).describe('Oldest first.'),
  })
  .describe('A conversation with the brain; only the agent that started it may read or continue it.');
export type Conversation = z.infer<typeof Conversation>;

export const Persona = z
  .object({
    id: ResourceId,
    name: z.string(),
    description: z.string().nullable(),
    soul_content: z.string().describe('The persona’s instructions; the spec names this field.'),
    active: z.boolean().describe('Whether this persona applies to the calling agent.'),
  })
  .describe('A persona.');
export type Persona = z.infer<typeof Persona>;

export const PersonaList = z.object({ personas: z.array(Persona) });
export type PersonaList = z.infer<typeof PersonaList>;

export const Identity = z
  .object({
    name: z.string(),
    email: z.string().nullable(),
    timezone: z.string().nullable().describe('IANA name.'),
    locale: z.string().nullable().describe('BCP 47 tag.'),
    summary: z.string().nullable().describe('A short self-description of the owner.'),
  })
  .describe('The owner this gateway serves.');
export type Identity = z.infer<typeof Identity>;

/** The parts of the context, each gathered on its own; an unavailable part is null. */
export const CONTEXT_PARTS = ['persona', 'user', 'memory', 'services'] as const;

export const UnavailablePart = z
  .object({
    part: z.enum(CONTEXT_PARTS),
    service: z.string().describe('The service that holds the part.'),
    code: z
      .enum(['SERVICE_UNAVAILABLE', 'UPSTREAM_TIMEOUT', 'UPSTREAM_ERROR', 'INSUFFICIENT_SCOPE'])
      .describe(
        'Why it is missing: the service is not running, too slow, failed, or the token may not read it.',
      ),
    message: z.string(),
  })
  .describe('A part of the context that could not be given; the rest of the context is still valid.');
export type UnavailablePart = z.infer<typeof UnavailablePart>;

export const GatewayContext = z
  .object({
    persona: Persona.nullable().describe(
      'The persona applied to the calling agent, with soul_content; null when none applies or it is unavailable.',
    ),
    user: Identity.nullable().describe('The owner served; null only when unavailable.'),
    memory: z
      .array(MemoryEntry)
      .nullable()
      .describe(`Long-term memory, newest first: ${CONTEXT_MEMORY_BOUND}; null only when unavailable.`),
    memoryCount: z
      .number()
      .int()
      .min(0)
      .nullable()
      .describe(
        'How many memory entries the owner has in all (memory holds the newest); null only when unavailable.',
      ),
    services: z
      .array(ConnectedService)
      .nullable()
      .describe('Connected services; null only when unavailable.'),
    endpoints: z.array(EndpointAccess).describe('The endpoints this token may call.'),
    unavailable: z
      .array(UnavailablePart)
      .describe('Parts that could not be gathered (empty when the context is complete).'),
  })
  .describe('Everything an agent needs to start, in one call; call this first.');
export type GatewayContext = z.infer<typeof GatewayContext>;

/** A version of an account's memory: a count of its changes (docs/adr/0060), as decimal text. */
export const MemoryVersion = z.string().regex(/^\d{1,19}$/);

/**
 * What the gateway asks brain.context.get with: the version of the account's memory it already
 * has, if any; then an unchanged memory is not sent again (docs/adr/0060, "Sixth round").
 */
export const BrainContextQuery = z.object({ memoryVersion: MemoryVersion.optional() });
export type BrainContextQuery = z.infer<typeof BrainContextQuery>;

/**
 * The brain's reply on brain.context.get: its parts of the gateway context for the calling agent.
 * The memory travels as JSON text, not as entries: PostgreSQL writes each entry's JSON from typed
 * columns (the brain's entry_json), the brain joins them and the gateway splices the array into
 * its answer as it came, so 200 entries are not parsed, checked and written again at every hop
 * (docs/adr/0043, "Third round"). Checked here is only that it is one array.
 */
export const BrainContext = z
  .object({
    persona: Persona.nullable(),
    user: Identity,
    memoryJson: z
      .string()
      .refine((text) => text.startsWith('[') && text.endsWith(']'), 'must be one JSON array')
      .nullable()
      .describe(
        'The newest memory entries (MemoryEntry[], newest first) as one JSON array text; null: the memory is the one of memoryVersion, which the request named (query memoryVersion) as the one it has.',
      ),
    memoryVersion: MemoryVersion.describe(
      'The version of the memory this reply is of (brain.memory_counts: an equal version is the same memory).',
    ),
    memoryCount: z.number().int().min(0).describe('All of the owner’s memory entries.'),
  })
  .describe(
    `Persona of the calling agent (from the pag-agent-id header), owner identity, memory (${CONTEXT_MEMORY_BOUND}).`,
  );
export type BrainContext = z.infer<typeof BrainContext>;
