/**
 * Adds the owner's plan and the token's agent (kind, name, limits) to every active introspection
 * answer (AgentIntrospectionClaims in @pag/contracts), in one indexed query. A token whose owner
 * account is gone, or whose agent was revoked or has expired, is answered inactive, whatever
 * oidc-provider found: the agent's state is the last word.
 *
 * The row is kept for a second per (account, client): introspection is the hot path (each
 * resource server asks for every token it has not cached), and this halves its statements
 * (bench/profile-notes.md). What the second can delay: a changed limit or plan. Not a revocation:
 * revoking deletes the tokens themselves (oidc-provider then finds none), and this replica forgets
 * the row at once (forget(), called for every revocation it makes).
 */
import type { AgentIntrospectionClaims } from '@pag/contracts';
import type { Middleware } from 'koa';
import type { PrismaClient } from '../generated/prisma/client.ts';

interface Row {
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

export interface AgentClaims {
  middleware: Middleware;
  /** Drops what is kept about an agent (its tokens were just revoked here). */
  forget(accountId: string, clientId: string): void;
}

export function agentClaims(prisma: PrismaClient): AgentClaims {
  const kept = new Map<string, { row: Row; until: number }>();
  const key = (accountId: string, clientId: string) => `${accountId} ${clientId}`;

  async function lookup(accountId: string, clientId: string): Promise<Row | undefined> {
    if (!UUID.test(accountId)) return undefined;
    const now = Date.now();
    const entry = kept.get(key(accountId, clientId));
    if (entry !== undefined && entry.until > now) return entry.row;
    const [row] = await prisma.$queryRaw<Row[]>`
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

  const middleware: Middleware = async (ctx, next) => {
    await next();
    const body = ctx.body as Record<string, unknown> | undefined;
    if ((ctx as { oidc?: { route?: string } }).oidc?.route !== 'introspection' || body?.active !== true)
      return;
    const accountId = String(body.account_id ?? body.sub ?? '');
    const clientId = String(body.client_id ?? '');
    const row = await lookup(accountId, clientId);
    const ended =
      row === undefined ||
      row.status === 'revoked' ||
      (row.expires_at !== null && row.expires_at.getTime() <= Date.now());
    if (ended) {
      ctx.body = { active: false };
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
  return { middleware, forget: (accountId, clientId) => kept.delete(key(accountId, clientId)) };
}
