/**
 * The subscriptions a bus has handed out and not yet closed, so the bus's own close() can close
 * them all. Each subscription closes once, however often close() is called.
 */
import type { Subscription } from './types.ts';

export class OpenSubscriptions {
  readonly #open = new Set<Subscription>();

  /** Wraps `stop` (end delivery, wait for running handlers) as a tracked subscription. */
  track(stop: () => Promise<void>): Subscription {
    let closing: Promise<void> | undefined;
    const subscription: Subscription = {
      close: () => {
        closing ??= stop().finally(() => this.#open.delete(subscription));
        return closing;
      },
    };
    this.#open.add(subscription);
    return subscription;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#open].map((subscription) => subscription.close()));
  }
}
