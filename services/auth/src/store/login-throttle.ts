/**
 * Slows down password guessing, per email and per client address, with the counters in
 * PostgreSQL so every replica sees the same failures and a restart forgets nothing.
 *
 * Policy: the first `freeFailures` failures of a key cost nothing; each further failure locks the
 * key for `baseDelaySeconds · 2^(n-1)` seconds (n = failures past the free ones), capped at
 * `maxDelaySeconds`. A key's failures are forgotten `forgetAfterSeconds` after its last failure.
 * While a key is locked, sign-in answers "try again in N s" at once (no password is checked, so
 * nothing hangs and nothing is learned). A correct password clears the email's counter but never
 * the address's, so a guesser cannot reset its address by signing in to an account of its own.
 *
 * Keys are stored as SHA-256 of `kind:value`: the table never holds the emails or addresses
 * people typed. The client address is koa's `ctx.ip`, which behind the gateway is the
 * X-Forwarded-For the gateway itself wrote (it drops the client's own).
 */
import { createHash } from 'node:crypto';

export interface ThrottlePolicy {
  /** Failures per email before delays start. */
  freeFailuresPerEmail: number;
  /** Failures per client address before delays start (higher: one address may serve many people). */
  freeFailuresPerAddress: number;
  baseDelaySeconds: number;
  maxDelaySeconds: number;
  forgetAfterSeconds: number;
}

export const DEFAULT_THROTTLE_POLICY: ThrottlePolicy = {
  freeFailuresPerEmail: 5,
  freeFailuresPerAddress: 20,
  baseDelaySeconds: 1,
  maxDelaySeconds: 15 * 60,
  forgetAfterSeconds: 60 * 60,
};

/** The raw-SQL surface of a Prisma client this file needs (the generated client has it). */
export interface RawSql {
  $queryRaw<T = unknown>(query: TemplateStringsArray, ...values: unknown[]): Promise<T>;
  $executeRaw(query: TemplateStringsArray, ...values: unknown[]): Promise<number>;
}

export interface LoginSubject {
  /** Normalised email as typed (whether or not an account has it). */
  email: string;
  /** Client address; undefined when unknown (then only the email is counted). */
  address: string | undefined;
}

function keyHash(kind: 'email' | 'address', value: string): string {
  return createHash('sha256').update(`${kind}:${value}`).digest('hex');
}

export class LoginThrottle {
  readonly #db: RawSql;
  readonly #policy: ThrottlePolicy;
  readonly #now: () => Date;

  constructor(db: RawSql, options: { policy?: Partial<ThrottlePolicy>; now?: () => Date } = {}) {
    this.#db = db;
    this.#policy = { ...DEFAULT_THROTTLE_POLICY, ...options.policy };
    this.#now = options.now ?? (() => new Date());
  }

  #keys(subject: LoginSubject): { key: string; freeFailures: number }[] {
    const keys = [{ key: keyHash('email', subject.email), freeFailures: this.#policy.freeFailuresPerEmail }];
    if (subject.address) {
      keys.push({
        key: keyHash('address', subject.address),
        freeFailures: this.#policy.freeFailuresPerAddress,
      });
    }
    return keys;
  }

  /** Seconds until the subject may try again; 0 when it may try now. */
  async retryAfterSeconds(subject: LoginSubject): Promise<number> {
    const now = this.#now();
    const hashes = this.#keys(subject).map(({ key }) => key);
    const rows = await this.#db.$queryRaw<{ locked_until: Date | null }[]>`
      SELECT max(locked_until) AS locked_until FROM "auth"."login_attempts"
       WHERE key_hash = ANY(${hashes}::text[]) AND locked_until > ${now}`;
    const lockedUntil = rows[0]?.locked_until;
    if (!lockedUntil) return 0;
    return Math.max(1, Math.ceil((new Date(lockedUntil).getTime() - now.getTime()) / 1000));
  }

  /** Counts one failure for the email and the address; returns the resulting wait in seconds. */
  async recordFailure(subject: LoginSubject): Promise<number> {
    const now = this.#now();
    const forgetBefore = new Date(now.getTime() - this.#policy.forgetAfterSeconds * 1000);
    let wait = 0;
    for (const { key, freeFailures } of this.#keys(subject)) {
      // One atomic upsert per key: concurrent failures on several replicas each count.
      const rows = await this.#db.$queryRaw<{ failures: number }[]>`
        INSERT INTO "auth"."login_attempts" AS a (key_hash, failures, last_failure_at, locked_until)
        VALUES (${key}, 1, ${now}, NULL)
        ON CONFLICT (key_hash) DO UPDATE SET
          failures = CASE WHEN a.last_failure_at < ${forgetBefore} THEN 1 ELSE a.failures + 1 END,
          last_failure_at = ${now}
        RETURNING failures`;
      const failures = Number(rows[0]?.failures ?? 1);
      const delay = this.#delaySeconds(failures - freeFailures);
      if (delay > 0) {
        const lockedUntil = new Date(now.getTime() + delay * 1000);
        // GREATEST: two replicas counting at once keep the longer lock.
        await this.#db.$executeRaw`
          UPDATE "auth"."login_attempts"
             SET locked_until = GREATEST(COALESCE(locked_until, ${lockedUntil}), ${lockedUntil})
           WHERE key_hash = ${key}`;
        wait = Math.max(wait, delay);
      }
    }
    return wait;
  }

  /** A correct password: the email's failures are forgiven (the address's are not, see above). */
  async recordSuccess(subject: LoginSubject): Promise<void> {
    await this.#db.$executeRaw`
      DELETE FROM "auth"."login_attempts" WHERE key_hash = ${keyHash('email', subject.email)}`;
  }

  /** Deletes counters that are forgotten and unlocked; for the service's periodic purge job. */
  async purgeExpired(): Promise<number> {
    const now = this.#now();
    const forgetBefore = new Date(now.getTime() - this.#policy.forgetAfterSeconds * 1000);
    return this.#db.$executeRaw`
      DELETE FROM "auth"."login_attempts"
       WHERE last_failure_at < ${forgetBefore} AND (locked_until IS NULL OR locked_until <= ${now})`;
  }

  #delaySeconds(failuresPastFree: number): number {
    if (failuresPastFree <= 0) return 0;
    // Exponent capped so 2^n stays a finite, small number long before the max applies.
    const exponential = this.#policy.baseDelaySeconds * 2 ** Math.min(failuresPastFree - 1, 30);
    return Math.min(exponential, this.#policy.maxDelaySeconds);
  }
}
