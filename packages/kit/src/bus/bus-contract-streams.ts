/**
 * The durable part of the bus contract: acknowledged publishing, deduplication, redelivery,
 * maxDeliver, shared durable consumers and positions that survive a stop; batch consumption
 * (bus-contract-batches.ts) on the same streams.
 */
import { beforeEach, describe, expect, test } from '@jest/globals';
import { describeBatchContract } from './bus-contract-batches.ts';
import type { BusContractContext } from './bus-test-helpers.ts';
import { Collector, rejectionOf, uniqueName } from './bus-test-helpers.ts';
import type { DurableMessage } from './types.ts';

/** Small, so redelivery tests take a fraction of a second. */
const ACK_WAIT_MS = 300;

export function describeStreamContract(ctx: BusContractContext): void {
  describe('durable streams', () => {
    let stream: string;
    beforeEach(async () => {
      const { bus, peer, subject } = ctx;
      stream = uniqueName('S');
      await bus.ensureStream({ name: stream, subjects: [`${subject}.>`] });
      // Declaring it again from another process is harmless.
      await peer.ensureStream({ name: stream, subjects: [`${subject}.>`] });
    });

    test('publishDurable resolves with the stream and increasing sequence numbers', async () => {
      const { bus, subject } = ctx;
      const acks = [];
      for (const id of ['a', 'b', 'c'])
        acks.push(await bus.publishDurable(`${subject}.e`, { id }, { msgId: id }));
      expect(acks.map((a) => a.stream)).toEqual([stream, stream, stream]);
      expect(acks.map((a) => a.duplicate)).toEqual([false, false, false]);
      expect(acks[1]!.seq).toBeGreaterThan(acks[0]!.seq);
      expect(acks[2]!.seq).toBeGreaterThan(acks[1]!.seq);
    });

    test('a subject no stream stores is refused with SERVICE_UNAVAILABLE', async () => {
      const { bus } = ctx;
      const error = await rejectionOf(
        bus.publishDurable(`${uniqueName()}.e`, {}, { msgId: 'x', timeoutMs: 2_000 }),
      );
      expect(error.code).toBe('SERVICE_UNAVAILABLE');
    });

    test('a repeated msgId is stored once and acknowledged as a duplicate', async () => {
      const { bus, peer, subject } = ctx;
      const first = await bus.publishDurable(`${subject}.e`, { v: 1 }, { msgId: 'same' });
      const again = await peer.publishDurable(`${subject}.e`, { v: 2 }, { msgId: 'same' });
      const next = await bus.publishDurable(`${subject}.e`, { v: 3 }, { msgId: 'other' });
      expect(again).toEqual({ stream, seq: first.seq, duplicate: true });
      expect(next.seq).toBe(first.seq + 1);

      const seen = new Collector<DurableMessage>();
      await bus.consume(stream, 'dedupe', async (msg) => seen.push(msg));
      const messages = await seen.atLeast(2);
      expect(messages.map((m) => [m.data, m.msgId])).toEqual([
        [{ v: 1 }, 'same'],
        [{ v: 3 }, 'other'],
      ]);
    });

    test('a failed delivery comes back after ackWait and, once handled, never again', async () => {
      const { bus, subject } = ctx;
      const deliveries = new Collector<{ id: string; count: number; at: number }>();
      await bus.consume<{ id: string }>(
        stream,
        'retry',
        async (msg) => {
          deliveries.push({ id: msg.data.id, count: msg.deliveryCount, at: performance.now() });
          if (msg.deliveryCount === 1) throw new Error('transient failure');
        },
        { ackWaitMs: ACK_WAIT_MS },
      );
      await bus.publishDurable(
        `${subject}.e`,
        { id: 'first' },
        { msgId: 'first', headers: { 'X-Request-Id': 'r' } },
      );
      const [one, two] = await deliveries.atLeast(2);
      expect([one?.id, one?.count, two?.id, two?.count]).toEqual(['first', 1, 'first', 2]);
      expect(two!.at - one!.at).toBeGreaterThanOrEqual(ACK_WAIT_MS - 20);

      // A second message that also fails once: its redelivery comes an ackWait after the first
      // message was acked, so a third delivery of the first would have arrived before it.
      await bus.publishDurable(`${subject}.e`, { id: 'second' }, { msgId: 'second' });
      await deliveries.atLeast(4);
      expect(deliveries.items.map((d) => `${d.id}#${d.count}`)).toEqual([
        'first#1',
        'first#2',
        'second#1',
        'second#2',
      ]);
    });

    test('a message that keeps failing is given up after maxDeliver deliveries', async () => {
      const { bus, subject } = ctx;
      const deliveries = new Collector<string>();
      await bus.consume<{ id: string }>(
        stream,
        'poison',
        async (msg) => {
          deliveries.push(`${msg.data.id}#${msg.deliveryCount}`);
          if (msg.data.id === 'poison' || msg.deliveryCount === 1) throw new Error('cannot handle');
        },
        { ackWaitMs: ACK_WAIT_MS, maxDeliver: 2 },
      );
      await bus.publishDurable(`${subject}.e`, { id: 'poison' }, { msgId: 'poison' });
      await deliveries.atLeast(2);
      // As above: the marker's redelivery comes after any third delivery of the poison message would.
      await bus.publishDurable(`${subject}.e`, { id: 'marker' }, { msgId: 'marker' });
      await deliveries.atLeast(4);
      expect(deliveries.items).toEqual(['poison#1', 'poison#2', 'marker#1', 'marker#2']);
    });

    test('consumers sharing a durable name split the messages without duplicates', async () => {
      const { bus, peer, subject, fixture } = ctx;
      const count = 30;
      const byConsumer = [new Collector<number>(), new Collector<number>()];
      const all = new Collector<DurableMessage<number>>();
      for (const [index, member] of [bus, peer].entries()) {
        await member.consume<number>(stream, 'shared', async (msg) => {
          byConsumer[index]!.push(msg.data);
          all.push(msg);
        });
      }
      for (let i = 0; i < count; i++) await bus.publishDurable(`${subject}.e`, i, { msgId: `m${i}` });
      await all.atLeast(count);
      await fixture.close();

      expect(all.items.map((m) => m.data).sort((a, b) => a - b)).toEqual([...Array(count).keys()]);
      expect(all.items.every((m) => m.deliveryCount === 1)).toBe(true);
      for (const collector of byConsumer) expect(collector.items.length).toBeGreaterThan(0);
    });

    test('messages published while no consumer runs are delivered when it starts, from where it stopped', async () => {
      const { bus, peer, subject } = ctx;
      for (const id of [1, 2, 3]) await bus.publishDurable(`${subject}.e`, id, { msgId: `early${id}` });
      const firstRun = new Collector<number>();
      const subscription = await peer.consume<number>(stream, 'late', async (msg) => firstRun.push(msg.data));
      expect(await firstRun.atLeast(3)).toEqual([1, 2, 3]);
      await subscription.close();

      await bus.publishDurable(`${subject}.e`, 4, { msgId: 'while-stopped' });
      const secondRun = new Collector<DurableMessage<number>>();
      await bus.consume<number>(stream, 'late', async (msg) => secondRun.push(msg));
      const [resumed] = await secondRun.atLeast(1);
      expect([resumed?.data, resumed?.deliveryCount]).toEqual([4, 1]);
      await bus.publishDurable(`${subject}.e`, 5, { msgId: 'after-resume' });
      expect((await secondRun.atLeast(2)).map((m) => m.data)).toEqual([4, 5]);
    });

    describeBatchContract(ctx, () => stream);
  });
}
