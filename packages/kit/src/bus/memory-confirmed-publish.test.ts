/**
 * The embedded mode's ack-after-commit: with `confirmedBy: { AUDIT: 'audit-writer' }` a durable
 * publish on AUDIT resolves only once that durable consumer acknowledged the message (its batch
 * resolved, i.e. the rows committed), and fails as a publish does when that does not happen in
 * time. Without the option a publish resolves once the stream stored the message, as before.
 * The confirming consumer is handed the published object itself (no JSON round trip in one
 * process, docs/adr/0076); every other receiver gets its own JSON copy, as over the wire.
 */
import { describe, expect, test } from '@jest/globals';
import { Collector, deferred, rejectionOf } from './bus-test-helpers.ts';
import { MemoryBus } from './memory-bus.ts';
import type { DurableMessage } from './types.ts';

const STREAM = { name: 'AUDIT', subjects: ['audit.events.>'] };
const SUBJECT = 'audit.events.gateway';

async function confirmedBus(): Promise<MemoryBus> {
  const bus = new MemoryBus({ confirmedBy: { AUDIT: 'audit-writer' } });
  await bus.ensureStream(STREAM);
  return bus;
}

/** Whether `promise` has settled once every callback already queued has run. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('MemoryBus confirmedBy', () => {
  test('a publish resolves once the named consumer’s batch resolved; what came meanwhile shares the next batch', async () => {
    const bus = await confirmedBus();
    const batches = new Collector<DurableMessage[]>();
    const commits = [deferred(), deferred()];
    await bus.consumeBatch(
      'AUDIT',
      'audit-writer',
      async (messages) => {
        const index = batches.items.length;
        batches.push(messages);
        await commits[index]!.promise;
      },
      { maxBatch: 100 },
    );
    // Another consumer of the stream acknowledging at once confirms nothing.
    await bus.consume('AUDIT', 'someone-else', async () => undefined);

    const first = bus.publishDurable(SUBJECT, { n: 1 }, { msgId: 'e1' });
    await batches.atLeast(1);
    const second = bus.publishDurable(SUBJECT, { n: 2 }, { msgId: 'e2' });
    const third = bus.publishDurable(SUBJECT, { n: 3 }, { msgId: 'e3' });
    expect(await settledYet(first)).toBe(false);

    commits[0]!.resolve();
    expect(await first).toEqual({ stream: 'AUDIT', seq: 1, duplicate: false });
    const [, secondBatch] = await batches.atLeast(2);
    expect(secondBatch!.map((m) => m.data)).toEqual([{ n: 2 }, { n: 3 }]);
    expect(await settledYet(Promise.race([second, third]))).toBe(false);

    commits[1]!.resolve();
    expect((await Promise.all([second, third])).map((ack) => ack.seq)).toEqual([2, 3]);
    await bus.close();
  });

  test('without the consumer the publish fails with UPSTREAM_TIMEOUT after timeoutMs', async () => {
    const bus = await confirmedBus();
    const startedAt = performance.now();
    const error = await rejectionOf(bus.publishDurable(SUBJECT, { n: 1 }, { msgId: 'e1', timeoutMs: 200 }));
    expect(error.code).toBe('UPSTREAM_TIMEOUT');
    expect(error.message).toBe(
      'audit-writer did not acknowledge the message on audit.events.gateway within 200 ms.',
    );
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(180);
    await bus.close();
  });

  test('a batch that failed first confirms its publishes when its redelivery succeeds; a duplicate waits for the original', async () => {
    const bus = await confirmedBus();
    const deliveries = new Collector<number>();
    await bus.consumeBatch(
      'AUDIT',
      'audit-writer',
      async (messages) => {
        for (const m of messages) deliveries.push(m.deliveryCount);
        if (messages.some((m) => m.deliveryCount === 1)) throw new Error('commit failed');
      },
      { maxBatch: 10, ackWaitMs: 100 },
    );
    const original = bus.publishDurable(SUBJECT, { n: 1 }, { msgId: 'e1', timeoutMs: 5_000 });
    await deliveries.atLeast(1);
    const duplicate = bus.publishDurable(SUBJECT, { n: 1 }, { msgId: 'e1', timeoutMs: 5_000 });
    expect(await settledYet(duplicate)).toBe(false);

    expect(await original).toEqual({ stream: 'AUDIT', seq: 1, duplicate: false });
    expect(await duplicate).toEqual({ stream: 'AUDIT', seq: 1, duplicate: true });
    expect(deliveries.items).toEqual([1, 2]);
    // The original is acknowledged by now: a later duplicate resolves at once.
    await expect(bus.publishDurable(SUBJECT, { n: 1 }, { msgId: 'e1' })).resolves.toMatchObject({ seq: 1 });
    await bus.close();
  });

  test('a message the consumer gives up fails its publish with SERVICE_UNAVAILABLE at once', async () => {
    const bus = await confirmedBus();
    await bus.consumeBatch(
      'AUDIT',
      'audit-writer',
      async () => {
        throw new Error('cannot store');
      },
      { maxBatch: 10, maxDeliver: 1 },
    );
    const error = await rejectionOf(
      bus.publishDurable(SUBJECT, { n: 1 }, { msgId: 'e1', timeoutMs: 60_000 }),
    );
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
    await bus.close();
  });

  test('the confirming consumer is handed the payload itself; another consumer and a live subscriber get JSON copies', async () => {
    const bus = await confirmedBus();
    const payload = { n: 1, at: new Date('2026-11-25T04:00:00.000Z'), gone: undefined };
    const handed = new Collector<unknown>();
    const copied = new Collector<unknown>();
    const live = new Collector<unknown>();
    await bus.consume('AUDIT', 'audit-writer', async (message) => handed.push(message.data));
    await bus.consume('AUDIT', 'someone-else', async (message) => copied.push(message.data));
    await bus.peer().subscribe(SUBJECT, (message) => live.push(message.data));

    await bus.publishDurable(SUBJECT, payload, { msgId: 'e1' });
    expect((await handed.atLeast(1))[0]).toBe(payload);
    const copy = { n: 1, at: '2026-11-25T04:00:00.000Z' };
    expect((await copied.atLeast(1))[0]).toStrictEqual(copy);
    expect((await live.atLeast(1))[0]).toStrictEqual(copy);
    await bus.close();
  });

  test('without the option a publish resolves once stored, whatever the consumers do', async () => {
    const bus = new MemoryBus();
    await bus.ensureStream(STREAM);
    const held = deferred();
    const delivered = new Collector<unknown>();
    await bus.consumeBatch(
      'AUDIT',
      'audit-writer',
      async (messages) => {
        delivered.push(messages);
        await held.promise;
      },
      { maxBatch: 10 },
    );
    await expect(bus.publishDurable(SUBJECT, { n: 1 }, { msgId: 'e1' })).resolves.toMatchObject({ seq: 1 });
    await delivered.atLeast(1);
    held.resolve();
    await bus.close();
  });
});
