/**
 * The budget of authentication failures per client address (table gateway.auth_failures,
 * docs/adr/0026-auth-failure-budget-per-address.md): at most `limit` requests with a rejected
 * token per address within `windowSeconds` of the first one, across every replica; past it the
 * address is refused until the window ends.
 *
 * Only failures write: an upsert counts them in the address's row and returns the count, so
 * replicas together answer exactly `limit` failures 401 and every later one 429. Failures that
 * arrive while this replica's previous upsert runs, or within `statementIntervalMs` of its start,
 * wait for the next, which counts them all, of every address (under a flood at most one statement
 * per interval, however many requests and addresses; an isolated failure is counted at once). Whether an address is blocked
 * is read from this replica's copy (BlockedAddresses): what its own counts returned, and a refresh
 * of the blocked rows every `refreshMs`. A request with a right token therefore costs no statement. Success resets nothing. The upserts commit without waiting for
 * the WAL flush (like the usage counts): a PostgreSQL crash may forget the last moment of failures.
 *
 * Times come from `now` (tests move it), not from the database, so that the window, Retry-After
 * and the purge agree on one clock.
 *
 * The count is a named statement on the client's node-postgres pool (kit's sqlPoolOf), not
 * Prisma's $queryRaw: under a flood of wrong tokens from many addresses it runs about once per
 * round trip, and Prisma's request pipeline was a fifth of the gateway's thread on a rejected token
 * (docs/adr/0079; the audit's append made the same move, docs/adr/0043).
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@pag/kit';
import { sqlPoolOf } from '@pag/kit';
import { addressBucket } from '../domain/address-bucket.ts';
import { BlockedAddresses } from '../domain/blocked-addresses.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

export interface AuthFailurePolicy {
  /** Failures an address may have in one window (the last of them still gets its 401). */
  limit: number;
  /** How long a window lasts from its first failure. */
  windowSeconds: number;
}

export interface AuthFailureOptions {
  policy: AuthFailurePolicy;
  /** How often the blocks other replicas counted are read. */
  refreshMs: number;
  now: () => Date;
  logger: Logger;
  /** Where the count's statement runs; default: the node-postgres pool under the client. */
  sql?: SqlStatements;
  /** The least time between the starts of two counts (default STATEMENT_INTERVAL_MS). */
  statementIntervalMs?: number;
}

/**
 * Under a flood of rejected tokens a replica starts at most one count per this many ms: at 1,000
 * failures a second, one statement for about five of them instead of one for each (PostgreSQL's
 * work and the pool's per statement were most of what a rejected token cost beyond a right one,
 * docs/adr/0079). A failure waits at most this long more for its 401, and only during a flood.
 */
export const STATEMENT_INTERVAL_MS = 5;

/** A node-postgres pool as the count uses it: named statements (prepared once per connection). */
export interface SqlStatements {
  query<R extends object>(statement: {
    name: string;
    text: string;
    values: unknown[];
  }): Promise<{
    rows: R[];
  }>;
}

/**
 * Adds each address's failures to its row and returns the rows ($1 now, $2 the addresses, $3 their
 * failures, $4 the window floor). Rows in address order: writers never deadlock.
 */
const COUNT_STATEMENT = `
  INSERT INTO "gateway"."auth_failures" AS f (address, window_start, failures)
  SELECT d.address, $1::timestamptz, d.n
    FROM unnest($2::text[], $3::int[]) AS d(address, n)
   CROSS JOIN (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
   ORDER BY d.address
  ON CONFLICT (address) DO UPDATE SET
    window_start = CASE WHEN f.window_start <= $4::timestamptz
                        THEN excluded.window_start ELSE f.window_start END,
    failures = CASE WHEN f.window_start <= $4::timestamptz
                    THEN excluded.failures ELSE f.failures + excluded.failures END
  RETURNING address, failures, window_start`;

interface CountRow {
  address: string;
  failures: number;
  window_start: Date;
}

interface Waiter {
  resolve(wait: number): void;
  reject(error: unknown): void;
}

interface BlockedRow {
  address: string;
  window_start: Date;
}

export class AuthFailureStore implements AsyncDisposable {
  readonly policy: AuthFailurePolicy;
  readonly #db: PrismaClient;
  readonly #sql: SqlStatements;
  readonly #options: AuthFailureOptions;
  readonly #blocked = new BlockedAddresses();
  readonly #timer: NodeJS.Timeout;
  #refreshing: Promise<void> | undefined;
  /** Failures waiting for the next statement, by address bucket. */
  readonly #queued = new Map<string, Waiter[]>();
  #writing: Promise<void> | undefined;
  /** When the last count started (performance.now(): monotonic, unlike the budget's `now`). */
  #lastStatementAt = Number.NEGATIVE_INFINITY;

  constructor(db: PrismaClient, options: AuthFailureOptions) {
    this.#db = db;
    this.#sql = options.sql ?? sqlPoolOf(db);
    this.#options = options;
    this.policy = options.policy;
    this.#timer = setInterval(() => void this.refresh(), options.refreshMs);
    this.#timer.unref();
  }

  /** Seconds the address must wait before sending a token again (0: it may now); no I/O. */
  retryAfterSeconds(address: string): number {
    return this.#wait(addressBucket(address), this.#options.now());
  }

  /**
   * The whole seconds until the address's window ends, never more than a window: a replica whose
   * clock runs ahead of this one's may have started the window "later" than this replica's now.
   */
  #wait(address: string, now: Date): number {
    return Math.min(this.policy.windowSeconds, this.#blocked.retryAfterSeconds(address, now.getTime()));
  }

  /**
   * Counts one failure of the address. Resolves 0 when it was within the budget (the caller
   * answers 401), else the seconds until the address's window ends (429).
   */
  recordFailure(address: string): Promise<number> {
    const bucket = addressBucket(address);
    return new Promise<number>((resolve, reject) => {
      const waiting = this.#queued.get(bucket);
      if (waiting === undefined) this.#queued.set(bucket, [{ resolve, reject }]);
      else waiting.push({ resolve, reject });
      this.#writing ??= this.#writeQueued();
    });
  }

  /**
   * One statement at a time, at most one per interval: the failures that arrived while the
   * previous one ran, or before the interval since its start is over, go together, so a flood
   * costs a statement per round trip or interval, not one per request, and each failure still
   * learns its own count (the k-th of n counted for an address is its total − n + k).
   */
  async #writeQueued(): Promise<void> {
    const interval = this.#options.statementIntervalMs ?? STATEMENT_INTERVAL_MS;
    for (;;) {
      // Failures that come meanwhile join this batch (recordFailure sees this writer going).
      const early = this.#lastStatementAt + interval - performance.now();
      if (early > 0) await sleep(early);
      this.#lastStatementAt = performance.now();
      const batch = [...this.#queued];
      this.#queued.clear();
      const answer = await this.#countBatch(batch);
      // Decide whether this writer goes on before waking anyone: a caller woken by its answer then
      // finds this writer still going or none, never one about to stop without seeing its failure.
      const more = this.#queued.size > 0;
      if (!more) this.#writing = undefined;
      answer();
      if (!more) return;
    }
  }

  /** Counts a batch; resolves (never rejects) to what answers its waiters. */
  async #countBatch(batch: [string, Waiter[]][]): Promise<() => void> {
    const now = this.#options.now();
    let rows: CountRow[];
    try {
      rows = await this.#count(batch, now);
    } catch (error) {
      this.#options.logger.warn({ err: error }, 'authentication failures not counted');
      return () => {
        for (const [, waiters] of batch) for (const waiter of waiters) waiter.reject(error);
      };
    }
    const byAddress = new Map(rows.map((row) => [row.address, row]));
    // The wait is counted from the answer, not from `now`: another replica's statement that
    // committed first, with a later clock reading, may have started the window after `now` (the
    // wait would then come out longer than the window).
    const answeredAt = this.#options.now();
    return () => {
      for (const [address, waiters] of batch) {
        const row = byAddress.get(address);
        if (row === undefined) {
          const error = new Error(`the failure count of ${address} returned no row`);
          for (const waiter of waiters) waiter.reject(error);
          continue;
        }
        waiters.forEach((waiter, k) => {
          waiter.resolve(this.#decide(address, row.failures - waiters.length + k + 1, row, answeredAt));
        });
      }
    };
  }

  /** Adds each address's failures to its row (COUNT_STATEMENT). */
  async #count(batch: [string, Waiter[]][], now: Date): Promise<CountRow[]> {
    const { rows } = await this.#sql.query<CountRow>({
      name: 'gateway_count_auth_failures',
      text: COUNT_STATEMENT,
      values: [
        now,
        batch.map(([address]) => address),
        batch.map(([, waiters]) => waiters.length),
        this.#windowFloor(now),
      ],
    });
    return rows;
  }

  /** 0 for a failure within the budget, else the wait; the address's last allowed failure blocks it. */
  #decide(address: string, count: number, row: CountRow, now: Date): number {
    const { limit } = this.policy;
    if (row.failures >= limit) this.#blocked.block(address, this.#windowEnd(row.window_start));
    if (count <= limit) return 0;
    return this.#wait(address, now) || 1;
  }

  /** Reads the blocks every replica counted (one statement; ended blocks are forgotten). */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#readBlocked().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #readBlocked(): Promise<void> {
    const now = this.#options.now();
    try {
      const rows = await this.#db.$queryRaw<BlockedRow[]>`
        SELECT address, window_start FROM "gateway"."auth_failures"
         WHERE window_start > ${this.#windowFloor(now)}::timestamptz AND failures >= ${this.policy.limit}::int`;
      this.#blocked.prune(now.getTime());
      for (const row of rows) this.#blocked.block(row.address, this.#windowEnd(row.window_start));
    } catch (error) {
      this.#options.logger.warn({ err: error }, 'blocked addresses not refreshed; retrying with the next');
    }
  }

  /** Deletes the rows of ended windows; for the service's purge job. */
  purgeEnded(): Promise<number> {
    return this.#db.$executeRaw`
      DELETE FROM "gateway"."auth_failures"
       WHERE window_start <= ${this.#windowFloor(this.#options.now())}::timestamptz`;
  }

  /** A window that began at or before this has ended. */
  #windowFloor(now: Date): Date {
    return new Date(now.getTime() - this.policy.windowSeconds * 1000);
  }

  #windowEnd(windowStart: Date): number {
    return new Date(windowStart).getTime() + this.policy.windowSeconds * 1000;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await Promise.all([this.#refreshing, this.#writing]);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
