/**
 * The usage counters (table gateway.usage_counters): one row per (account, agent, window). Every
 * statement names the owner account, which leads the primary key, so one owner's query never
 * reads another's rows and every lookup is a range of that key.
 *
 * Two ways to count (docs/adr/0013-per-agent-usage-limits.md):
 * - count(): an agent with a limit, now, in one statement (one round trip): an upsert of its day
 *   row and month row returning both counts, so every replica decides on the same numbers;
 * - countLater(): an agent without limits, in memory, written by a flush every `flushMs` (one
 *   statement for every agent) and before every report, so counting costs such a request nothing.
 *
 * Rows are locked in key order (day before month, agents sorted), so writers never deadlock. The
 * counting statements commit without waiting for the WAL flush (synchronous_commit off for that
 * transaction only): a database crash may lose the last fraction of a second of counts, and a
 * busy agent's row lock is no longer held for a disk flush per request.
 */
import type { AgentUsage } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import type { UsageCounts, UsageWindows } from '../domain/usage-windows.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { AgentKey } from './pending-counts.ts';
import { PendingCounts } from './pending-counts.ts';

export type { AgentKey } from './pending-counts.ts';

interface ReportRow {
  agent_id: string;
  today: number;
  this_month: number;
  last_used_at: Date | null;
}

export interface UsageStoreOptions {
  /** How often counts kept in memory are written. */
  flushMs: number;
  logger: Logger;
}

export class UsageStore implements AsyncDisposable {
  readonly #db: PrismaClient;
  readonly #logger: Logger;
  readonly #pending = new PendingCounts();
  readonly #timer: NodeJS.Timeout;
  #flushing: Promise<void> = Promise.resolve();

  constructor(db: PrismaClient, options: UsageStoreOptions) {
    this.#db = db;
    this.#logger = options.logger;
    this.#timer = setInterval(() => void this.flush(), options.flushMs);
    this.#timer.unref();
  }

  /** Adds one request to the agent's day and month now; the counts returned include it. */
  async count(key: AgentKey, windows: UsageWindows): Promise<UsageCounts> {
    // set_config(…, true) lasts until the end of this statement's own transaction, i.e. its commit.
    const rows = await this.#db.$queryRaw<{ kind: 'day' | 'month'; count: number }[]>`
      INSERT INTO "gateway"."usage_counters" AS u
             (account_id, agent_id, window_kind, window_start, count, updated_at)
      SELECT ${key.accountId}, ${key.clientId}, w.kind::"gateway"."usage_window_kind", w.start, 1, now()
        FROM (VALUES ('day', ${windows.day.start}::date), ('month', ${windows.month.start}::date)) AS w(kind, start)
       CROSS JOIN (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
      ON CONFLICT (account_id, agent_id, window_kind, window_start)
      DO UPDATE SET count = u.count + 1, updated_at = excluded.updated_at
      RETURNING window_kind::text AS kind, count`;
    const counts: UsageCounts = { day: 0, month: 0 };
    for (const row of rows) counts[row.kind] = row.count;
    return counts;
  }

  /** Takes back a request that was refused, so refused requests never use up a limit. */
  async uncount(key: AgentKey, windows: UsageWindows): Promise<void> {
    await this.#db.$executeRaw`
      UPDATE "gateway"."usage_counters" SET count = count - 1
       WHERE account_id = ${key.accountId} AND agent_id = ${key.clientId} AND count > 0
         AND ((window_kind = 'day' AND window_start = ${windows.day.start}::date)
           OR (window_kind = 'month' AND window_start = ${windows.month.start}::date))`;
  }

  /** Counts one request of an agent without limits, written with the next flush. */
  countLater(key: AgentKey, windows: UsageWindows, at: Date): void {
    this.#pending.add(key, windows, at);
  }

  /** Writes the counts kept in memory; on failure they stay for the next flush. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#write());
    return this.#flushing;
  }

  async #write(): Promise<void> {
    if (this.#pending.size === 0) return;
    const deltas = this.#pending.drain();
    try {
      await this.#db.$executeRaw`
        INSERT INTO "gateway"."usage_counters" AS u
               (account_id, agent_id, window_kind, window_start, count, updated_at)
        SELECT d.account_id, d.agent_id, d.kind::"gateway"."usage_window_kind", d.start, d.count, d.at
          FROM unnest(${deltas.map((d) => d.accountId)}::text[], ${deltas.map((d) => d.clientId)}::text[],
                      ${deltas.map((d) => d.kind)}::text[], ${deltas.map((d) => d.windowStart)}::date[],
                      ${deltas.map((d) => d.count)}::int[], ${deltas.map((d) => d.lastAt.toISOString())}::timestamptz[])
               WITH ORDINALITY AS d(account_id, agent_id, kind, start, count, at, n)
         CROSS JOIN (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
         ORDER BY d.n
        ON CONFLICT (account_id, agent_id, window_kind, window_start)
        DO UPDATE SET count = u.count + excluded.count, updated_at = GREATEST(u.updated_at, excluded.updated_at)`;
    } catch (error) {
      this.#pending.restore(deltas);
      this.#logger.warn(
        { err: error, rows: deltas.length },
        'usage counts not written; retrying with the next flush',
      );
    }
  }

  /**
   * Usage of some of the owner's agents, one entry per asked client id in the order asked (zeros
   * for an agent that never called). lastUsedAt is the latest request in any window.
   */
  async report(
    accountId: string,
    clientIds: readonly string[],
    windows: UsageWindows,
  ): Promise<AgentUsage[]> {
    if (clientIds.length === 0) return [];
    await this.flush();
    const rows = await this.#db.$queryRaw<ReportRow[]>`
      SELECT agent_id,
             COALESCE(SUM(count) FILTER (WHERE window_kind = 'day' AND window_start = ${windows.day.start}::date), 0)::int AS today,
             COALESCE(SUM(count) FILTER (WHERE window_kind = 'month' AND window_start = ${windows.month.start}::date), 0)::int AS this_month,
             MAX(updated_at) AS last_used_at
        FROM "gateway"."usage_counters"
       WHERE account_id = ${accountId} AND agent_id = ANY(${[...new Set(clientIds)]}::text[])
       GROUP BY agent_id`;
    const byClient = new Map(rows.map((row) => [row.agent_id, row]));
    return clientIds.map((clientId) => {
      const row = byClient.get(clientId);
      return {
        clientId,
        today: row?.today ?? 0,
        thisMonth: row?.this_month ?? 0,
        lastUsedAt: row?.last_used_at?.toISOString() ?? null,
      };
    });
  }

  /** Stops the flush timer and writes what is still in memory. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
    if (this.#pending.size > 0)
      this.#logger.error({ rows: this.#pending.size }, 'usage counts lost at shutdown');
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
