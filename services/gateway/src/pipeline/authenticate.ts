/**
 * What an accepted bearer token tells the gateway. The step itself (step 5: the token in the
 * Authorization header only, introspection at the auth service, the audience of this API, an
 * owner account, rejected tokens budgeted per client address, docs/adr/0026) is the kit's, shared
 * with the proxy (docs/adr/0032); the gateway adds the agent claims of kit-introspector.ts.
 */
import type { Plan, TokenKind } from '@pag/contracts';
import type { BearerIntrospector } from '@pag/kit';

export type { AuthFailureBudget } from '@pag/kit';

/** What introspection says about an active token. */
export interface TokenIdentity {
  accountId: string;
  clientId: string;
  scopes: string[];
  /** Epoch seconds; undefined: valid until revoked. */
  expiresAt: number | undefined;
  /** The audiences the token was issued for (RFC 8707 resource indicators). */
  audience: string[];
  /** The owner's plan when the auth service states it. */
  plan: Plan | undefined;
  /** How the token came to be ('oauth' when the auth service does not say). */
  tokenKind: TokenKind;
  /** The agent the token belongs to; null when introspection names none. */
  agent: { id: string; name: string } | null;
  /** The agent's request limits per UTC day and month; null: no limit of that period. */
  limits: { daily: number | null; monthly: number | null };
}

/** RFC 7662 introspection and the gateway's reading of its answer (kit-introspector.ts). */
export type Introspector = BearerIntrospector<TokenIdentity>;
