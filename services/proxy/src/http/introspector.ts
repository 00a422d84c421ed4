/**
 * The proxy's reading of introspection for the kit's authenticate step: the account a token acts
 * for must be an account id (a UUID), since it keys the vault's rows; anything else is refused
 * like a token acting for no account. The client and agent are kept for the audit event.
 */
import { AgentIntrospectionClaims } from '@pag/contracts';
import type { ActiveToken, BearerIntrospector, TokenCheck } from '@pag/kit';
import { z } from 'zod';
import type { ProxyIdentity } from './state.ts';

/** RFC 7662 introspection as the proxy needs it (kit's IntrospectionClient fits). */
export interface TokenIntrospector {
  check(token: string, options?: { requestId?: string }): Promise<TokenCheck>;
}

/** What `z.uuid()` accepts, tested as a pattern: no parse result to build on every call (docs/adr/0074). */
const ACCOUNT_ID = z.regexes.uuid();

export function proxyIntrospector(client: TokenIntrospector): BearerIntrospector<ProxyIdentity> {
  return {
    check: (token, options) => client.check(token, options),
    identify: (active, accountId) =>
      proxyIdentity({
        accountId,
        scopes: active.scopes,
        clientId: active.clientId,
        agentId: agentIdOf(active),
      }),
  };
}

/**
 * The caller as the proxy keeps it, whether its token was introspected here or by the embedded
 * gateway that handed the request over (in-process.ts); null when the account is no account id.
 */
export function proxyIdentity(caller: {
  accountId: string;
  scopes: readonly string[];
  clientId: string;
  agentId: string | null;
}): ProxyIdentity | null {
  const { accountId, clientId, agentId } = caller;
  return ACCOUNT_ID.test(accountId) ? { accountId, scopes: [...caller.scopes], clientId, agentId } : null;
}

/**
 * The agent the auth service names in the answer (agent_id), for the audit event; the gateway in
 * front has already refused a token whose agent claims are malformed, so here they only inform.
 */
function agentIdOf(active: ActiveToken): string | null {
  const claims = AgentIntrospectionClaims.safeParse(active.extra);
  return claims.success ? (claims.data.agent_id ?? null) : null;
}
