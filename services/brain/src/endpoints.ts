/**
 * The brain's answers on the bus (BrainEndpoints and BrainOwnerEndpoints), one handler file each
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
import { ownerProviderClear, ownerProviderGet, ownerProviderSet } from './handlers/owner-provider.ts';
import { personasList } from './handlers/personas-list.ts';

export const brainEndpoints: readonly EndpointHandler<AnyEndpoint, BrainHandlerDeps>[] = [
  contextGet,
  memoryCreate,
  personasList,
  identityGet,
  knowledgeList,
  ownerKnowledgeList,
  chatSend,
  conversationGet,
  ownerProviderGet,
  ownerProviderSet,
  ownerProviderClear,
];
