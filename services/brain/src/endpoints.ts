/**
 * The brain's answers on the bus (BrainEndpoints), one handler file each, served by kit's
 * serveEndpoints. brain.chat.send has no handler yet (it needs an LLM provider): the gateway
 * answers 503 naming the brain, which is the truth, rather than a made-up reply.
 */
import type { AnyEndpoint } from '@pag/contracts';
import type { EndpointHandler } from '@pag/kit';
import type { BrainHandlerDeps } from './handlers/brain-deps.ts';
import { contextGet } from './handlers/context-get.ts';
import { identityGet } from './handlers/identity-get.ts';
import { knowledgeList, ownerKnowledgeList } from './handlers/knowledge-list.ts';
import { memoryCreate } from './handlers/memory-create.ts';
import { personasList } from './handlers/personas-list.ts';

export const brainEndpoints: readonly EndpointHandler<AnyEndpoint, BrainHandlerDeps>[] = [
  contextGet,
  memoryCreate,
  personasList,
  identityGet,
  knowledgeList,
  ownerKnowledgeList,
];
