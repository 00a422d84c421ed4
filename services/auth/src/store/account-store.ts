/**
 * Owner accounts: the tenants every other record belongs to.
 *
 * What it enforces: emails are stored normalised (lowercase) and unique; passwords are checked
 * against the length rules, then only their argon2id hash is stored; a sign-in for an unknown
 * email costs one hash verification like any other (no enumeration by timing) and fails with the
 * same answer as a wrong password; repeated failures are throttled per email and per client
 * address (LoginThrottle). Sign-up does say when an email is taken: that cannot be hidden from
 * someone trying to sign up, and sign-up is not where guessing happens. Sign-up, every sign-in
 * attempt (on the account the email names, never the email typed) and signing out write an
 * audit event (store/audit-outbox.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Plan } from '@pag/contracts';
import { AppError } from '@pag/contracts';
import {
  normaliseEmail,
  plausibleCredentials,
  validEmail,
  validPassword,
  validPlan,
} from '../accounts/credentials.ts';
import { burnVerification, hashPassword, needsRehash, verifyPassword } from '../accounts/password-hashing.ts';
import type { DecidedBy } from '../events/audit-decisions.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { recordDecision } from './audit-outbox.ts';
import type { ThrottlePolicy } from './login-throttle.ts';
import { LoginThrottle } from './login-throttle.ts';

/** An owner account as the rest of the service sees it (never its password hash). */
export interface Account {
  id: string;
  email: string;
  plan: Plan;
  createdAt: Date;
  /** Dashboard sessions issued until then are over (the owner signed out); null: none ended. */
  sessionsValidAfter: Date | null;
}

export interface CreateAccountInput {
  email: string;
  password: string;
  plan?: Plan | undefined;
}

/** The outcome of a sign-in attempt; `throttled` carries the seconds to wait. */
export type SignInResult =
  | { outcome: 'signed-in'; account: Account }
  | { outcome: 'rejected' }
  | { outcome: 'throttled'; retryAfterSeconds: number };

export interface AccountStoreOptions {
  throttle?: Partial<ThrottlePolicy>;
  /** The clock of the throttle; tests move it instead of sleeping. */
  now?: () => Date;
}

type AccountsDb = Pick<
  PrismaClient,
  'account' | 'auditOutbox' | '$queryRaw' | '$executeRaw' | '$transaction'
>;

interface AccountRow {
  id: string;
  email: string;
  plan: Plan;
  createdAt: Date;
  passwordHash: string;
  sessionsValidAfter: Date | null;
}

function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    email: row.email,
    plan: row.plan,
    createdAt: row.createdAt,
    sessionsValidAfter: row.sessionsValidAfter,
  };
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'P2002';
}

export class AccountStore {
  readonly #db: AccountsDb;
  readonly #throttle: LoginThrottle;

  constructor(db: AccountsDb, options: AccountStoreOptions = {}) {
    this.#db = db;
    this.#throttle = new LoginThrottle(db, { policy: options.throttle, now: options.now });
  }

  /** The throttle, for the purge job (`purgeExpired`). */
  get throttle(): LoginThrottle {
    return this.#throttle;
  }

  /** Creates an account; INVALID_REQUEST for a bad email/password/plan, CONFLICT for a taken email. */
  async create(input: CreateAccountInput, by: DecidedBy): Promise<Account> {
    const email = validEmail(input.email);
    const password = validPassword(input.password);
    const plan = validPlan(input.plan ?? 'free');
    const passwordHash = await hashPassword(password);
    try {
      const row = await this.#db.$transaction(async (tx) => {
        const created = await tx.account.create({ data: { id: randomUUID(), email, passwordHash, plan } });
        await recordDecision(tx, {
          by,
          accountId: created.id,
          action: 'owner.create',
          target: created.id,
          detail: { plan },
        });
        return created;
      });
      return toAccount(row);
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new AppError('CONFLICT', 'An account with this email already exists. Sign in instead.', {
          cause: error,
          hint: 'Sign in at /login, or sign up with another email.',
        });
      }
      throw error;
    }
  }

  async findById(id: string): Promise<Account | null> {
    // Ids are uuids; anything else (e.g. a tampered cookie) cannot name an account.
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
    const row = await this.#db.account.findUnique({ where: { id } });
    return row ? toAccount(row) : null;
  }

  async findByEmail(email: string): Promise<Account | null> {
    const row = await this.#db.account.findUnique({ where: { email: normaliseEmail(email) } });
    return row ? toAccount(row) : null;
  }

  /**
   * The account when the password is right, else null; unknown emails take as long as known ones.
   * No throttling here: `signIn` is what login forms call.
   */
  async verify(email: string, password: string): Promise<Account | null> {
    const normalised = normaliseEmail(email);
    if (!plausibleCredentials(normalised, password)) {
      await burnVerification('');
      return null;
    }
    const row = await this.#db.account.findUnique({ where: { email: normalised } });
    if (!row) {
      await burnVerification(password);
      return null;
    }
    if (!(await verifyPassword(row.passwordHash, password))) return null;
    if (needsRehash(row.passwordHash)) {
      await this.#db.account.update({
        where: { id: row.id },
        data: { passwordHash: await hashPassword(password) },
      });
    }
    return toAccount(row);
  }

  /**
   * Ends every session of the account issued until now (signing out): its dashboard sessions (a
   * copy of the session cookie taken earlier stops working too) and oidc-provider's sessions in
   * every browser, so the next authorization asks for the sign-in again instead of issuing a code
   * on a remembered consent (docs/adr/0027). oidc-provider finds a session only by the id in its
   * `_session` cookie; the adapter stores each with its account id, so deleting those rows ends
   * them all. Returns the moment dashboard sessions must be newer than.
   */
  async endSessions(accountId: string, by: DecidedBy): Promise<Date> {
    const now = new Date();
    await this.#db.$transaction(async (tx) => {
      await tx.$executeRaw`
        DELETE FROM "auth"."oidc_payloads" WHERE model = 'Session' AND account_id = ${accountId}`;
      await tx.account.updateMany({ where: { id: accountId }, data: { sessionsValidAfter: now } });
      await recordDecision(tx, { by, accountId, action: 'owner.sign_out', target: accountId });
    });
    return now;
  }

  /**
   * Throttled sign-in for the login forms: check the lock, verify, count the outcome, and record
   * it as an `owner.sign_in` audit event: allowed, or denied with WRONG_CREDENTIALS or
   * RATE_LIMITED, on the account the email names (none for an unknown email).
   */
  async signIn(
    email: string,
    password: string,
    address: string | undefined,
    by: DecidedBy,
  ): Promise<SignInResult> {
    const subject = { email: normaliseEmail(email), address };
    const record = async (accountId: string | null, reason: string | null) =>
      recordDecision(this.#db, {
        by,
        accountId,
        action: 'owner.sign_in',
        target: accountId,
        decision: reason === null ? 'allowed' : 'denied',
        reason,
      });
    const wait = await this.#throttle.retryAfterSeconds(subject);
    if (wait > 0) {
      await record((await this.findByEmail(email))?.id ?? null, 'RATE_LIMITED');
      return { outcome: 'throttled', retryAfterSeconds: wait };
    }
    const account = await this.verify(email, password);
    if (account) {
      await this.#throttle.recordSuccess(subject);
      await record(account.id, null);
      return { outcome: 'signed-in', account };
    }
    await this.#throttle.recordFailure(subject);
    await record((await this.findByEmail(email))?.id ?? null, 'WRONG_CREDENTIALS');
    return { outcome: 'rejected' };
  }
}
