/**
 * The owner's identity, seeded on first read: a fresh account has no profile in the brain yet,
 * so the brain asks the auth service once (auth.account.get) for the account's email, stores the
 * profile it makes of it (domain/seed-identity.ts) if none appeared meanwhile, and answers that.
 *
 * - Concurrent first reads in this process share one request to auth and one insert; reads on
 *   other replicas may ask too, and the insert-if-absent keeps one row whatever the order.
 * - The first read of an account in this process also gives it its default persona when it has
 *   none (default-persona.ts), so the context read with it carries a persona.
 * - When auth cannot answer, the read fails with its code (SERVICE_UNAVAILABLE, UPSTREAM_TIMEOUT;
 *   UPSTREAM_ERROR for a reply that breaks OwnerAccount or names another account): an identity
 *   is never invented.
 */
import type { Identity, OwnerAccount } from '@pag/contracts';
import { AppError, AuthEndpoints, MessageHeaders } from '@pag/contracts';
import type { Bus, Logger } from '@pag/kit';
import { InvalidReplyError, requestEndpoint } from '@pag/kit';
import { identityFromAccount } from '../domain/seed-identity.ts';
import type { IdentityStore } from '../store/identity-store.ts';
import type { DefaultPersona } from './default-persona.ts';

export interface OwnerIdentityOptions {
  bus: Bus;
  identities: IdentityStore;
  defaultPersona: DefaultPersona;
  /** How long to wait for auth.account.get. */
  authTimeoutMs: number;
  logger: Logger;
}

export class OwnerIdentity {
  readonly #options: OwnerIdentityOptions;
  readonly #seeding = new Map<string, Promise<Identity>>();

  constructor(options: OwnerIdentityOptions) {
    this.#options = options;
  }

  async get(accountId: string, requestId: string | undefined): Promise<Identity> {
    await this.#options.defaultPersona.ensure(accountId);
    const stored = await this.#options.identities.find(accountId);
    if (stored !== null) return stored;
    let seeding = this.#seeding.get(accountId);
    if (seeding === undefined) {
      seeding = this.#seed(accountId, requestId).finally(() => this.#seeding.delete(accountId));
      this.#seeding.set(accountId, seeding);
    }
    return seeding;
  }

  async #seed(accountId: string, requestId: string | undefined): Promise<Identity> {
    const account = await this.#askAuth(accountId, requestId);
    const identity = await this.#options.identities.insertIfAbsent(accountId, identityFromAccount(account));
    this.#options.logger.info({ accountId, requestId }, 'identity profile seeded from the account');
    return identity;
  }

  async #askAuth(accountId: string, requestId: string | undefined): Promise<OwnerAccount> {
    const { bus, authTimeoutMs, logger } = this.#options;
    const headers: Record<string, string> =
      requestId === undefined ? {} : { [MessageHeaders.requestId]: requestId };
    let account: OwnerAccount;
    try {
      account = await requestEndpoint(
        bus,
        AuthEndpoints.accountGet,
        { accountId },
        {
          timeoutMs: authTimeoutMs,
          headers,
        },
      );
    } catch (error) {
      if (error instanceof InvalidReplyError) {
        logger.warn({ accountId, requestId, issues: error.issues }, 'invalid auth.account.get reply');
        throw invalidAccount();
      }
      if (!(error instanceof AppError)) throw error;
      if (error.code === 'SERVICE_UNAVAILABLE' || error.code === 'UPSTREAM_TIMEOUT') {
        const why =
          error.code === 'SERVICE_UNAVAILABLE' ? 'is not running' : `did not answer in ${authTimeoutMs} ms`;
        throw new AppError(error.code, `The owner's identity is not known yet and the auth service ${why}.`, {
          cause: error,
          expose: true,
        });
      }
      throw error;
    }
    if (account.accountId !== accountId) {
      logger.warn(
        { accountId, requestId, answered: account.accountId },
        'auth.account.get named another account',
      );
      throw invalidAccount();
    }
    return account;
  }
}

function invalidAccount(): AppError {
  return new AppError('UPSTREAM_ERROR', 'The auth service answered with an invalid account.', {
    expose: true,
  });
}
