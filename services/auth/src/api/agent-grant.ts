/**
 * auth.agents.grant: the trigger service asks, before each run of a trigger, what its creating
 * agent may still do (agents/agent-grant.ts): status now, scopes, limits, the owner's plan. The
 * agent is looked up within the named account only, so another owner's agent id is `unknown`.
 */
import { AuthEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import { agentGrantOf } from '../agents/agent-grant.ts';
import type { AuthHandlerDeps } from './auth-handler-deps.ts';

export const agentGrant = handle(
  AuthEndpoints.agentGrant,
  async (_caller, { accountId, agentId }, { agents }: AuthHandlerDeps) =>
    agentGrantOf(agentId, await agents.findWithPlan(accountId, agentId), new Date()),
);
