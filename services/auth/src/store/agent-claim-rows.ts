/**
 * The row introspection answers are completed with (agents/agent-claims.ts): the owner's plan and
 * the token's agent, in one indexed query, kept a second per (account, client). Introspection is
 * the hot path (each resource server asks for every token it has not cached), and this halves its
 * statements (bench/profile-notes.md). What the second can delay: a changed limit or plan. Not a
 * revocation: revoking deletes the tokens themselves (oidc-provider then finds none), and this
 * replica forgets the row at once (forget(), called for every revocation it makes).
 */
import type { PrismaClient } from '../generated/prisma/client.ts';

export interface AgentClaimRow {
  plan: string;
  id: string | null;
  kind: string | null;
  name: string | null;
  status: string | null;
  daily_limit: number | null;
  monthly_limit: number | null;
  expires_at: Date | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const KEEP_MS = 1000;
const MAX_ROWS = 10_000;

export interface AgentClaimRows {
  /** The owner's plan and the (account, client)'s agent; undefined when the account is unknown. */
  lookup(accountId: string, clientId: string): Promise<AgentClaimRow | undefined>;
  /** Drops what is kept about an agent (its tokens were just revoked here). */
  forget(accountId: string, clientId: string): void;
}

export function agentClaimRows(prisma: PrismaClient): AgentClaimRows {
  const kept = new Map<string, { row: AgentClaimRow; until: number }>();
  const key = (accountId: string, clientId: string) => `${accountId} ${clientId}`;

  async function lookup(accountId: string, clientId: string): Promise<AgentClaimRow | undefined> {
    if (!UUID.test(accountId)) return undefined;
    const now = Date.now();
    const entry = kept.get(key(accountId, clientId));
    if (entry !== undefined && entry.until > now) return entry.row;
    const [row] = await prisma.$queryRaw<AgentClaimRow[]>`
      SELECT a.plan::text AS plan, g.id, g.kind::text AS kind, g.name, g.status::text AS status,
             g.daily_limit, g.monthly_limit, g.expires_at
        FROM "auth"."accounts" a
        LEFT JOIN "auth"."agents" g ON g.account_id = a.id AND g.client_id = ${clientId}
       WHERE a.id = ${accountId}::uuid`;
    if (row !== undefined) {
      // Oldest first out: Map keeps insertion order.
      if (kept.size >= MAX_ROWS) kept.delete(kept.keys().next().value as string);
      kept.delete(key(accountId, clientId));
      kept.set(key(accountId, clientId), { row, until: now + KEEP_MS });
    }
    return row;
  }

  return { lookup, forget: (accountId, clientId) => kept.delete(key(accountId, clientId)) };
}
