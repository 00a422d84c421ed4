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
/** The context carries at most this many memory entries, the newest; older ones stay stored. */
export const CONTEXT_MEMORY_MAX = 200;

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
  .object({ id: ResourceId, content: z.string(), createdAt: Timestamp })
  .describe('A memory entry as written and as listed in the context.');
export type MemoryEntry = z.infer<typeof MemoryEntry>;

export const KnowledgeDocument = z
  .object({
    id: ResourceId,
    title: z.string(),
    kind: z.string().describe('identity, preferences, skills or another label the owner chose.'),
    content: z.string().describe('Markdown.'),
    updatedAt: Timestamp,
  })
  .describe('A document of the owner’s knowledge base (fields: our decision).');

export const KnowledgeBase = z.object({ documents: z.array(KnowledgeDocument) });
export type KnowledgeBase = z.infer<typeof KnowledgeBase>;

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

export const ChatReply = z
  .object({ conversationId: ResourceId, reply: z.string().describe('Markdown.'), createdAt: Timestamp })
  .describe('The brain’s reply (shape: our decision).');
export type ChatReply = z.infer<typeof ChatReply>;

export const Persona = z
  .object({
    id: ResourceId,
    name: z.string(),
    description: z.string().nullable(),
    soul_content: z.string().describe('The persona’s instructions; the spec names this field.'),
    active: z.boolean().describe('Whether this persona applies to the calling agent.'),
  })
  .describe('A persona (fields beyond soul_content: our decision).');
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
  .describe('The owner this gateway serves (fields: our decision).');
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
      .describe(
        `Long-term memory, newest first, at most the newest ${CONTEXT_MEMORY_MAX} entries; null only when unavailable.`,
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

/** The brain's reply on brain.context.get: its parts of the gateway context for the calling agent. */
export const BrainContext = z
  .object({ persona: Persona.nullable(), user: Identity, memory: z.array(MemoryEntry) })
  .describe(
    `Persona of the calling agent (from the pag-agent-id header), owner identity, memory (newest first, at most ${CONTEXT_MEMORY_MAX}).`,
  );
export type BrainContext = z.infer<typeof BrainContext>;
