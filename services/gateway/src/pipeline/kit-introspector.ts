/**
 * The gateway's Introspector on top of the kit's RFC 7662 client: maps an active token of an
 * owner account to the identity the pipeline uses, with the agent claims the auth service adds
 * (plan, token kind, the agent and its limits; AgentIntrospectionClaims). Claims that do not
 * match their schema are the auth service's fault (503), never read as "no limit".
 */
import { AgentIntrospectionClaims, AppError } from '@pag/contracts';
import type { ActiveToken, IntrospectionClient } from '@pag/kit';
import type { Introspector, TokenIdentity } from './authenticate.ts';

/** The client hands out the same object while an answer is cached, so it is read once. */
const identities = new WeakMap<ActiveToken, TokenIdentity>();

export function kitIntrospector(client: IntrospectionClient): Introspector {
  return {
    check: (token, options) => client.check(token, options),
    identify(active, accountId) {
      let identity = identities.get(active);
      if (identity === undefined) {
        identity = identityOf(active, accountId);
        identities.set(active, identity);
      }
      return identity;
    },
  };
}

export function identityOf(active: ActiveToken, accountId: string): TokenIdentity {
  const parsed = AgentIntrospectionClaims.safeParse(active.extra);
  if (!parsed.success) {
    throw new AppError(
      'SERVICE_UNAVAILABLE',
      'The auth service answered introspection with malformed agent claims.',
      {
        cause: parsed.error,
      },
    );
  }
  const claims = parsed.data;
  return {
    accountId,
    clientId: active.clientId,
    scopes: active.scopes,
    expiresAt: active.expiresAt,
    audience: active.audience,
    plan: claims.plan,
    tokenKind: claims.token_kind ?? 'oauth',
    agent:
      claims.agent_id === undefined
        ? null
        : { id: claims.agent_id, name: claims.agent_name ?? claims.agent_id },
    limits: { daily: claims.limit_daily ?? null, monthly: claims.limit_monthly ?? null },
  };
}
