/**
 * What the brain knows for one text, read together: the persona applying to the agent (its own,
 * else the owner's default; an account met for the first time gets its default first), the
 * owner's identity, and the knowledge documents and memory entries best matching the text (the
 * one search, store/search.ts), best first. The chat retrieves for a message, a trigger run for
 * its prompt; both for the account they name only.
 */
import type { Identity, Persona } from '@pag/contracts';
import type { Passage } from '../domain/chat-prompt.ts';
import type { DefaultPersona } from '../identity/default-persona.ts';
import type { OwnerIdentity } from '../identity/owner-identity.ts';
import type { BrainStores } from '../store/brain-stores.ts';

/** How many of each kind of passage retrieval considers (the budget may give fewer). */
export const RETRIEVE_PER_KIND = 8;

export interface RetrieveDeps {
  stores: BrainStores;
  identity: OwnerIdentity;
  defaultPersona: DefaultPersona;
}

export interface Retrieved {
  persona: Persona | null;
  identity: Identity;
  /** Best first. */
  passages: Passage[];
}

export async function retrieve(
  deps: RetrieveDeps,
  who: { accountId: string; agentId: string | null; requestId: string },
  text: string,
): Promise<Retrieved> {
  const page = { limit: RETRIEVE_PER_KIND, offset: 0 };
  // Before the persona is read: an account met for the first time gets its default persona.
  await deps.defaultPersona.ensure(who.accountId);
  const [persona, identity, knowledge, memory] = await Promise.all([
    deps.stores.personas.applying(who.accountId, who.agentId),
    deps.identity.get(who.accountId, who.requestId),
    deps.stores.knowledge.search(who.accountId, text, page),
    deps.stores.memoryAdmin.search(who.accountId, text, { agentId: undefined, ...page }),
  ]);
  const passages: Passage[] = [
    ...knowledge.map((hit) => ({ source: 'knowledge' as const, ...hit })),
    ...memory.map((hit) => ({ source: 'memory' as const, title: null, ...hit })),
  ].sort((a, b) => b.rank - a.rank);
  return { persona, identity, passages };
}
