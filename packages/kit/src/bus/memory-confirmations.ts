/**
 * Publishers waiting until a named durable consumer is done with their message: the embedded
 * mode's ack-after-commit (MemoryBusOptions.confirmedBy). A stream tells it of every message a
 * consumer acknowledged or gave up; a waiter learns which of the two happened, or that its time
 * ran out. Given-up messages are remembered for the duplicate window, so a duplicate published
 * after its original was given up is not confirmed either; acknowledged ones need no memory (the
 * consumer's position says they are done).
 */
export type Confirmation = 'ack' | 'give-up' | 'timeout';

type Settle = (confirmation: Confirmation) => void;

export class Confirmations {
  /** How long a give-up is remembered: the stream's duplicate window. */
  readonly #windowMs: number;
  /** consumer → seq → the publishers waiting for it. */
  readonly #waiting = new Map<string, Map<number, Set<Settle>>>();
  /** consumer → seq → when it was given up (insertion order is time order). */
  readonly #givenUp = new Map<string, Map<number, number>>();

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  /** Resolves once `consumer` settles `seq`, or with 'timeout' after timeoutMs. */
  wait(consumer: string, seq: number, timeoutMs: number): Promise<Confirmation> {
    return new Promise((resolve) => {
      const bySeq = this.#waiting.get(consumer) ?? new Map<number, Set<Settle>>();
      this.#waiting.set(consumer, bySeq);
      const waiters = bySeq.get(seq) ?? new Set<Settle>();
      bySeq.set(seq, waiters);
      const settle: Settle = (confirmation) => {
        clearTimeout(timer);
        waiters.delete(settle);
        if (waiters.size === 0 && bySeq.get(seq) === waiters) bySeq.delete(seq);
        resolve(confirmation);
      };
      const timer = setTimeout(() => settle('timeout'), timeoutMs);
      waiters.add(settle);
    });
  }

  settled(consumer: string, seq: number, outcome: 'ack' | 'give-up', now = Date.now()): void {
    if (outcome === 'give-up') this.#rememberGiveUp(consumer, seq, now);
    const waiters = this.#waiting.get(consumer)?.get(seq);
    if (!waiters) return;
    for (const settle of [...waiters]) settle(outcome);
  }

  /** How a message the consumer is already done with was settled. */
  doneWith(consumer: string, seq: number): 'ack' | 'give-up' {
    return this.#givenUp.get(consumer)?.has(seq) ? 'give-up' : 'ack';
  }

  #rememberGiveUp(consumer: string, seq: number, now: number): void {
    const givenUp = this.#givenUp.get(consumer) ?? new Map<number, number>();
    this.#givenUp.set(consumer, givenUp);
    for (const [old, at] of givenUp) {
      if (at >= now - this.#windowMs) break;
      givenUp.delete(old);
    }
    givenUp.set(seq, now);
  }
}
