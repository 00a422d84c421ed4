/**
 * The brain's answers on the bus (BrainEndpoints, BrainOwnerEndpoints, BrainServiceEndpoints), one handler file each
 * (or a few of one resource), served by kit's serveEndpoints.
 */
import type { AnyEndpoint } from '@pag/contracts';
import type { EndpointHandler } from '@pag/kit';
import type { BrainHandlerDeps } from './handlers/brain-deps.ts';
import { chatSend } from './handlers/chat-send.ts';
import { contextGet } from './handlers/context-get.ts';
import { conversationGet } from './handlers/conversation-get.ts';
import { identityGet } from './handlers/identity-get.ts';
import { knowledgeList, ownerKnowledgeList } from './handlers/knowledge-list.ts';
import { memoryCreate } from './handlers/memory-create.ts';
import { memoryDelete } from './handlers/memory-delete.ts';
import { ownerIdentityGet } from './handlers/owner-identity-get.ts';
import { ownerIdentitySet } from './handlers/owner-identity-set.ts';
import { ownerKnowledgeDelete } from './handlers/owner-knowledge-delete.ts';
import { ownerKnowledgeGet } from './handlers/owner-knowledge-get.ts';
import { ownerKnowledgeSave } from './handlers/owner-knowledge-save.ts';
import { ownerMemoryClear } from './handlers/owner-memory-clear.ts';
import { ownerMemoryDelete } from './handlers/owner-memory-delete.ts';
import { ownerMemoryList } from './handlers/owner-memory-list.ts';
import { ownerPersonaAssign } from './handlers/owner-persona-assign.ts';
import { ownerPersonaDelete } from './handlers/owner-persona-delete.ts';
import { ownerPersonaSave } from './handlers/owner-persona-save.ts';
import { ownerPersonasList } from './handlers/owner-personas-list.ts';
import { ownerProviderClear, ownerProviderGet, ownerProviderSet } from './handlers/owner-provider.ts';
import { personasList } from './handlers/personas-list.ts';
import { promptRun } from './handlers/prompt-run.ts';

export const brainEndpoints: readonly EndpointHandler<AnyEndpoint, BrainHandlerDeps>[] = [
  contextGet,
  memoryCreate,
  personasList,
  identityGet,
  knowledgeList,
  memoryDelete,
  // The owner's side (BrainOwnerEndpoints: the auth service's dashboard asks, `pag` opens the stores).
  ownerPersonasList,
  ownerPersonaSave,
  ownerPersonaDelete,
  ownerPersonaAssign,
  ownerKnowledgeGet,
  ownerKnowledgeSave,
  ownerKnowledgeDelete,
  ownerIdentityGet,
  ownerIdentitySet,
  ownerMemoryList,
  ownerMemoryDelete,
  ownerMemoryClear,
  // Chat, conversations, the owner's provider; the owner's knowledge listing is the agent route's.
  chatSend,
  conversationGet,
  ownerProviderGet,
  ownerProviderSet,
  ownerProviderClear,
  ownerKnowledgeList,
  // A trigger's prompt, for one run (BrainServiceEndpoints, from the trigger service).
  promptRun,
];
