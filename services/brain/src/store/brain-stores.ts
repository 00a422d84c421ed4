/**
 * The only place that talks to the brain's tables (Prisma): one store per kind of record, each
 * built once here on the brain's database client.
 */
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { ContextPartsCache } from './context-parts-cache.ts';
import { ContextStore } from './context-store.ts';
import { ConversationStore } from './conversation-store.ts';
import { IdentityStore } from './identity-store.ts';
import { KnowledgeStore } from './knowledge-store.ts';
import { MemoryAdminStore } from './memory-admin-store.ts';
import { MemoryStore } from './memory-store.ts';
import { PersonaStore } from './persona-store.ts';
import { ProviderStore } from './provider-store.ts';

export interface BrainStores {
  context: ContextStore;
  memory: MemoryStore;
  memoryAdmin: MemoryAdminStore;
  personas: PersonaStore;
  identities: IdentityStore;
  knowledge: KnowledgeStore;
  conversations: ConversationStore;
  providers: ProviderStore;
}

/** `contextParts`: the context's kept parts, when the brain listens for their changes. */
export function brainStores(prisma: PrismaClient, contextParts?: ContextPartsCache): BrainStores {
  return {
    context: new ContextStore(prisma, contextParts),
    memory: new MemoryStore(prisma),
    memoryAdmin: new MemoryAdminStore(prisma),
    personas: new PersonaStore(prisma),
    identities: new IdentityStore(prisma),
    knowledge: new KnowledgeStore(prisma),
    conversations: new ConversationStore(prisma),
    providers: new ProviderStore(prisma),
  };
}
