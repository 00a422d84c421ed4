/**
 * Adds the owner's plan and the token's agent (kind, name, limits) to every active introspection
 * answer (AgentIntrospectionClaims in @pag/contracts), read by store/agent-claim-rows.ts. A token
 * whose owner account is gone, or whose agent was revoked or has expired, is answered inactive,
 * whatever oidc-provider found: the agent's state is the last word.
 */
import type { AgentIntrospectionClaims } from '@pag/contracts';
import { TOKEN_INACTIVE_HEADER } from '@pag/contracts';
import type { Middleware } from 'koa';
import type { AgentClaimRows } from '../store/agent-claim-rows.ts';
import { agentStanding } from './agent-rules.ts';

export function agentClaimsMiddleware(rows: AgentClaimRows): Middleware {
  return async (ctx, next) => {
    await next();
    const body = ctx.body as Record<string, unknown> | undefined;
    if ((ctx as { oidc?: { route?: string } }).oidc?.route !== 'introspection' || body?.active !== true)
      return;
    const accountId = String(body.account_id ?? body.sub ?? '');
    const clientId = String(body.client_id ?? '');
    const row = await rows.lookup(accountId, clientId);
    const standing =
      row === undefined
        ? 'gone'
        : agentStanding({ status: row.status ?? 'active', expiresAt: row.expires_at });
    if (row === undefined || standing !== 'active') {
      ctx.body = { active: false };
      // The agent's revocation or expiry is the token's (provider/introspection.ts).
      if (standing === 'revoked' || standing === 'expired') ctx.set(TOKEN_INACTIVE_HEADER, standing);
      return;
    }
    const claims: AgentIntrospectionClaims = {
      plan: row.plan as AgentIntrospectionClaims['plan'],
      token_kind: (row.kind ?? 'oauth') as AgentIntrospectionClaims['token_kind'],
      ...(row.id === null
        ? {}
        : {
            agent_id: row.id,
            agent_name: row.name ?? undefined,
            limit_daily: row.daily_limit,
            limit_monthly: row.monthly_limit,
          }),
    };
    Object.assign(body, claims);
  };
}
