/**
 * The usage counters (table gateway.usage_counters): one row per (account, agent, window). Every
 * statement names the owner account, which leads the primary key, so one owner's query never
 * reads another's rows and every lookup is a range of that key.
 *
 * Two ways to count:
 * - take(): an agent with a limit, through this replica's lease on its allowance (UsageLeases,
 *   docs/adr/0016-exact-limits-across-replicas.md): served from a block reserved in the rows
 *   without a round trip, or, near the limit, by one call of gateway.lease_usage that counts the
 *   request if the limits allow; every replica decides on the same rows;
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
import type { LeaseAnswer } from '../domain/usage-lease.ts';
import type { UsageLimits, UsageWindows } from '../domain/usage-windows.ts';
import { usageWindows } from '../domain/usage-windows.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { AgentKey } from './pending-counts.ts';
import { PendingCounts } from './pending-counts.ts';
import type { LeaseRequest, LimitDecision } from './usage-leases.ts';
import { UsageLeases } from './usage-leases.ts';

export type { AgentKey } from './pending-counts.ts';

interface LeaseRow {
  taken: number;
  granted: number;
  day_count: number;
  day_reserved: number;
  month_count: number;
  month_reserved: number;
}

interface ReportRow {
  agent_id: string;
  today: number;
  this_month: number;
  last_used_at: Date | null;
}

export interface UsageStoreOptions {
  /**
   * How often counts kept in memory are written, the limited agents' served requests settled
   * and idle blocks given back.
   */
  flushMs: number;
  /** The largest block of a limited agent's allowance one replica reserves ahead. */
  maxBlock?: number;
  /** A block is at most this fraction (1/spread) of what is still free. */
  spread?: number;
  logger: Logger;
}

/**
 * Far from a limit a busy agent costs one statement per this many requests; a replica that dies
 * without shutdown strands at most this many units (plus what it served since its last tick) until
 * the window ends.
 */
const DEFAULT_MAX_BLOCK = 500;
/** A block takes at most 1/16 of what is free: below 16 free units, one request at a time. */
const DEFAULT_SPREAD = 16;

/** How long daily counts are kept (days before today, UTC). */
export const DAILY_RETENTION_DAYS = 35;

export class UsageStore implements AsyncDisposable {
  readonly #db: PrismaClient;
  readonly #logger: Logger;
  readonly #pending = new PendingCounts();
  readonly #leases: UsageLeases;
  readonly #timer: NodeJS.Timeout;
  #flushing: Promise<void> = Promise.resolve();

  constructor(db: PrismaClient, options: UsageStoreOptions) {
    this.#db = db;
    this.#logger = options.logger;
    this.#leases = new UsageLeases((request) => leaseUsage(db, request), {
      maxBlock: options.maxBlock ?? DEFAULT_MAX_BLOCK,
      spread: options.spread ?? DEFAULT_SPREAD,
      logger: options.logger,
    });
    this.#timer = setInterval(() => void this.#tick(), options.flushMs);
    this.#timer.unref();
  }

  /** Decides one request of an agent with a limit: served (and counted) or refused. */
  take(key: AgentKey, windows: UsageWindows, limits: UsageLimits, at: Date): Promise<LimitDecision> {
    return this.#leases.take(key, windows, limits, at);
  }

  /** Counts one request of an agent without limits, written with the next flush. */
  countLater(key: AgentKey, windows: UsageWindows, at: Date): void {
    this.#pending.add(key, windows, at);
  }

  /** Every flushMs: the unlimited agents' counts, then the leases' settlements and idle blocks. */
  async #tick(): Promise<void> {
    await this.flush();
    await this.#leases.tick(usageWindows(new Date()));
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
    await Promise.all([this.flush(), this.#leases.settle()]);
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

  /**
   * Deletes daily counts older than DAILY_RETENTION_DAYS (nothing reads them: limits and the
   * dashboard use today and this month). Monthly rows stay: one a month per agent, and they keep
   * lastUsedAt true for agents that have been quiet a long time.
   */
  async purgeOldDays(): Promise<number> {
    return this.#db.$executeRaw`
      DELETE FROM "gateway"."usage_counters"
       WHERE window_kind = 'day' AND reserved = 0
         AND window_start < (now() AT TIME ZONE 'UTC')::date - ${DAILY_RETENTION_DAYS}::int`;
  }

  /** Stops the flush timer, writes what is still in memory and gives every block back. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await Promise.all([this.flush(), this.#leases.close()]);
    if (this.#pending.size > 0)
      this.#logger.error({ rows: this.#pending.size }, 'usage counts lost at shutdown');
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** One call of gateway.lease_usage (see its migration): settle, release, take, reserve. */
export async function leaseUsage(db: PrismaClient, request: LeaseRequest): Promise<LeaseAnswer> {
  const { key, windows, limits, settlement } = request;
  const [row] = await db.$queryRaw<LeaseRow[]>`
    SELECT * FROM "gateway"."lease_usage"(
      ${key.accountId}, ${key.clientId}, ${windows.day.start}::date, ${windows.month.start}::date,
      ${limits.daily}::int, ${limits.monthly}::int, ${settlement.settle}::int, ${settlement.release}::int,
      ${request.take}::int, ${request.maxBlock}::int, ${request.spread}::int,
      ${settlement.servedAt?.toISOString() ?? null}::timestamptz)`;
  if (row === undefined) throw new Error('lease_usage returned no row');
  return {
    taken: row.taken,
    granted: row.granted,
    count: { day: row.day_count, month: row.month_count },
    reserved: { day: row.day_reserved, month: row.month_reserved },
  };
}
