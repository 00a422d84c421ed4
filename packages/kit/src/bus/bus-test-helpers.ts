/**
 * Small helpers for bus tests that wait for events instead of time: a deferred, a collector that
 * resolves once it holds N items, unique names so tests sharing one server never meet, and a
 * barrier that proves earlier messages have been delivered. A state with no event (such as
 * isReady()) is polled with eventually() from the testing module.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '@pag/contracts';
import type { Bus, Subscription } from './types.ts';

/** A bus under test, with the peers it can make. */
export interface BusFixture {
  bus: Bus;
  /** Another connection to the same bus, as another process would hold. */
  makePeer: () => Promise<Bus>;
  /** Closes the bus and every peer; may be called twice. */
  close(): Promise<void>;
}

/** Fresh for every test: a bus, one peer, and a subject prefix no other test uses. */
export interface BusContractContext {
  fixture: BusFixture;
  bus: Bus;
  peer: Bus;
  subject: string;
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** The AppError a promise rejects with; fails if it resolves or rejects with anything else. */
export async function rejectionOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

/** Collects items; `atLeast(n)` resolves once n have arrived. */
export class Collector<T> {
  readonly items: T[] = [];
  readonly #waiters: { count: number; done: Deferred<T[]> }[] = [];

  push = (item: T): void => {
    this.items.push(item);
    for (const waiter of [...this.#waiters]) {
      if (this.items.length >= waiter.count) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.done.resolve([...this.items]);
      }
    }
  };

  atLeast(count: number): Promise<T[]> {
    if (this.items.length >= count) return Promise.resolve([...this.items]);
    const done = deferred<T[]>();
    this.#waiters.push({ count, done });
    return done.promise;
  }
}

/** A token safe in subjects and stream names, unique per call. */
export function uniqueName(prefix = 't'): string {
  return `${prefix}${randomUUID().replaceAll('-', '').slice(0, 12)}`;
}

/**
 * Publishes a marker that every `receivers` bus subscribes to and waits until all got it. NATS
 * keeps the order of one publisher's messages to a subscriber, and so does the memory bus: once
 * the marker is in, every message published before it has been delivered.
 */
export async function barrier(publisher: Bus, receivers: Bus[]): Promise<void> {
  const subject = uniqueName('barrier');
  const arrived = new Collector<string>();
  const subscriptions: Subscription[] = [];
  for (const [index, receiver] of receivers.entries()) {
    subscriptions.push(await receiver.subscribe(subject, () => arrived.push(String(index))));
  }
  await publisher.publish(subject, null);
  await arrived.atLeast(receivers.length);
  await Promise.all(subscriptions.map((s) => s.close()));
}
