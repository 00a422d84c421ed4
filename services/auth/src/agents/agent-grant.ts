/**
 * What the trigger service learns about an agent before each run of its triggers (AgentGrant):
 * where it stands now (a stored `active` agent past its expiry is expired), the scopes it holds
 * (none unless active, so a run can never borrow the rights of a revoked or expired agent), its
 * limits and the owner's plan. An agent the owner does not have (deleted, or another owner's) is
 * `unknown` and tells nothing about itself.
 */
import type { AgentGrant } from '@pag/contracts';
import { agentStanding } from './agent-rules.ts';

export interface GrantedAgent {
  status: string;
  expiresAt: Date | null;
  clientId: string;
  scopes: string[];
  dailyLimit: number | null;
  monthlyLimit: number | null;
  account: { plan: AgentGrant['plan'] };
}

export function agentGrantOf(agentId: string, agent: GrantedAgent | null, now: Date): AgentGrant {
  if (agent === null)
    return {
      agentId,
      status: 'unknown',
      clientId: null,
      scopes: [],
      limits: { daily: null, monthly: null },
      plan: null,
    };
  const status = agentStanding(agent, now);
  return {
    agentId,
    status,
    clientId: agent.clientId,
    scopes: status === 'active' ? agent.scopes : [],
    limits: { daily: agent.dailyLimit, monthly: agent.monthlyLimit },
    plan: agent.account.plan,
  };
}
