/**
 * A stand-in for the auth service's auth.account.get on the in-memory bus: answers the accounts
 * the test registered (OwnerAccount), NOT_FOUND for others, counts what it was asked, and can
 * hold its answers until the test releases them (to line up concurrent first reads, or to stay
 * silent past the brain's timeout). close() takes it off the bus: the auth service is down.
 */
import { randomUUID } from 'node:crypto';
import type { OwnerAccount } from '@pag/contracts';
import { AppError, AuthSubjects, OwnerAccountQuery, QueueGroups } from '@pag/contracts';
import type { Bus, Subscription } from '@pag/kit';

export class FakeAuth implements AsyncDisposable {
  readonly accounts = new Map<string, OwnerAccount>();
  /** Every accountId asked for, in order. */
  readonly asked: string[] = [];
  /** Replaces the reply (e.g. one that breaks the schema); undefined: the registered account. */
  replyOverride: ((accountId: string) => unknown) | undefined;
  #held: Promise<void> | undefined;
  #release: (() => void) | undefined;
  #subscription: Subscription | undefined;
  readonly #askWaiters: { accountId: string; times: number; arrived: () => void }[] = [];

  static async start(bus: Bus): Promise<FakeAuth> {
    const fake = new FakeAuth();
    fake.#subscription = await bus.handle(AuthSubjects.accountGet, (msg) => fake.#answer(msg.data), {
      queue: QueueGroups.auth,
    });
    return fake;
  }

  /** Registers an owner account and returns its id. */
  addAccount(email: string): string {
    const accountId = randomUUID();
    this.accounts.set(accountId, { accountId, email, plan: 'free', createdAt: new Date().toISOString() });
    return accountId;
  }

  /** Resolves once `accountId` has been asked for `times` times in all (answered or held). */
  untilAsked(accountId: string, times: number): Promise<void> {
    if (this.#timesAsked(accountId) >= times) return Promise.resolve();
    return new Promise((arrived) => this.#askWaiters.push({ accountId, times, arrived }));
  }

  /** Answers wait until release() from now on. */
  hold(): void {
    this.#held = new Promise((resolve) => {
      this.#release = resolve;
    });
  }

  release(): void {
    this.#release?.();
    this.#held = undefined;
  }

  async close(): Promise<void> {
    this.release();
    await this.#subscription?.close();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #timesAsked(accountId: string): number {
    return this.asked.filter((id) => id === accountId).length;
  }

  async #answer(data: unknown): Promise<unknown> {
    const { accountId } = OwnerAccountQuery.parse(data);
    this.asked.push(accountId);
    for (const waiter of [...this.#askWaiters]) {
      if (this.#timesAsked(waiter.accountId) < waiter.times) continue;
      this.#askWaiters.splice(this.#askWaiters.indexOf(waiter), 1);
      waiter.arrived();
    }
    await this.#held;
    if (this.replyOverride !== undefined) return this.replyOverride(accountId);
    const account = this.accounts.get(accountId);
    if (account === undefined) throw new AppError('NOT_FOUND', `No account ${accountId}.`);
    return account;
  }
}
