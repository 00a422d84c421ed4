/**
 * The gateway's Introspector on top of the kit's RFC 7662 client: maps an active token to the
 * identity the pipeline uses. A token that acts for no owner account is refused, because every
 * request under /api/v1 belongs to a tenant.
 */
import type { Plan } from '@pag/contracts';
import { PLANS } from '@pag/contracts';
import type { IntrospectionClient } from '@pag/kit';
import type { Introspector, TokenIdentity } from './authenticate.ts';

export function kitIntrospector(client: IntrospectionClient): Introspector {
  return {
    async introspect(token: string, requestId: string): Promise<TokenIdentity | null> {
      const active = await client.introspect(token, { requestId });
      if (active === null || active.accountId === undefined) return null;
      const plan = active.extra.plan;
      return {
        accountId: active.accountId,
        clientId: active.clientId,
        scopes: active.scopes,
        expiresAt: active.expiresAt,
        audience: active.audience,
        plan: (PLANS as readonly unknown[]).includes(plan) ? (plan as Plan) : undefined,
      };
    },
  };
}
