/**
 * The batch part of the durable contract (consumeBatch): a burst arrives in fewer batches than
 * messages, each message once; a failed batch comes back; batches respect maxBatch; replicas
 * share; a close lets the running batch finish and a later consumer resumes without loss. How a
 * NATS client groups messages into batches depends on when they reach it, so the assertions hold
 * for any grouping the contract allows, not for one particular split.
 */
import { describe, expect, test } from '@jest/globals';
import type { BusContractContext } from './bus-test-helpers.ts';
import { Collector, deferred } from './bus-test-helpers.ts';
import type { DurableMessage } from './types.ts';

/** Small, so redelivery tests take a fraction of a second. */
const ACK_WAIT_MS = 300;

const range = (count: number) => [...Array(count).keys()];
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);

export function describeBatchContract(ctx: BusContractContext, streamName: () => string): void {
  describe('batch consumption', () => {
    const publish = (values: number[], prefix: string) =>
      Promise.all(
        values.map((v) => ctx.bus.publishDurable(`${ctx.subject}.e`, v, { msgId: `${prefix}${v}` })),
      );

    test('a burst arrives in fewer batches than messages, each message exactly once', async () => {
      const { bus } = ctx;
      const count = 20;
      const batches = new Collector<DurableMessage<number>[]>();
      const seen = new Collector<DurableMessage<number>>();
      const burstPublished = deferred();
      await bus.consumeBatch<number>(
        streamName(),
        'burst',
        async (messages) => {
          batches.push(messages);
          for (const message of messages) seen.push(message);
          // The first batch is still "committing" while the rest of the burst arrives.
          await burstPublished.promise;
        },
        { maxBatch: 100 },
      );
      await publish(range(count), 'burst');
      burstPublished.resolve();
      await seen.atLeast(count);

      expect(sorted(seen.items.map((m) => m.data))).toEqual(range(count));
      expect(seen.items.every((m) => m.deliveryCount === 1)).toBe(true);
      expect(batches.items.length).toBeLessThan(count);
    });

    test('a batch whose handler throws comes back after ackWait with deliveryCount 2, then never again', async () => {
      const { bus } = ctx;
      const deliveries = new Collector<{ label: string; at: number }>();
      await publish([1, 2, 3], 'retry');
      await bus.consumeBatch<number>(
        streamName(),
        'retry-batch',
        async (messages) => {
          const at = performance.now();
          for (const m of messages) deliveries.push({ label: `${m.data}#${m.deliveryCount}`, at });
          if (messages.some((m) => m.deliveryCount === 1)) throw new Error('transient failure');
        },
        { maxBatch: 10, ackWaitMs: ACK_WAIT_MS },
      );
      await deliveries.atLeast(6);
      const firstAt = new Map<string, number>();
      for (const d of deliveries.items) if (d.label.endsWith('#1')) firstAt.set(d.label.slice(0, -2), d.at);
      for (const d of deliveries.items.filter((item) => item.label.endsWith('#2'))) {
        expect(d.at - firstAt.get(d.label.slice(0, -2))!).toBeGreaterThanOrEqual(ACK_WAIT_MS - 20);
      }

      // A marker that also fails once: its redelivery comes an ackWait after the others were
      // acknowledged, so a third delivery of any of them would have arrived before it.
      await publish([4], 'retry');
      await deliveries.atLeast(8);
      expect(deliveries.items.map((d) => d.label).sort()).toEqual([
        '1#1',
        '1#2',
        '2#1',
        '2#2',
        '3#1',
        '3#2',
        '4#1',
        '4#2',
      ]);
    });

    test('a batch never holds more than maxBatch messages', async () => {
      const { bus } = ctx;
      const count = 10;
      await publish(range(count), 'max');
      const batches = new Collector<number[]>();
      const seen = new Collector<number>();
      await bus.consumeBatch<number>(
        streamName(),
        'bounded',
        async (messages) => {
          batches.push(messages.map((m) => m.data));
          for (const m of messages) seen.push(m.data);
        },
        { maxBatch: 3 },
      );
      await seen.atLeast(count);
      expect(sorted(seen.items)).toEqual(range(count));
      expect(Math.max(...batches.items.map((b) => b.length))).toBeLessThanOrEqual(3);
    });

    test('workers sharing a durable name share the batches without duplicates', async () => {
      const { bus, peer } = ctx;
      const count = 30;
      const byWorker = [new Collector<number>(), new Collector<number>()];
      const all = new Collector<DurableMessage<number>>();
      // Each worker holds its first batch until both have one, so neither can take everything.
      const bothBusy = deferred();
      for (const [index, member] of [bus, peer].entries()) {
        await member.consumeBatch<number>(
          streamName(),
          'shared-batch',
          async (messages) => {
            for (const m of messages) {
              byWorker[index]!.push(m.data);
              all.push(m);
            }
            if (byWorker.every((worker) => worker.items.length > 0)) bothBusy.resolve();
            await bothBusy.promise;
          },
          { maxBatch: 5 },
        );
      }
      for (const i of range(count)) await bus.publishDurable(`${ctx.subject}.e`, i, { msgId: `s${i}` });
      await all.atLeast(count);
      await ctx.fixture.close();

      expect(sorted(all.items.map((m) => m.data))).toEqual(range(count));
      expect(all.items.every((m) => m.deliveryCount === 1)).toBe(true);
      for (const worker of byWorker) expect(worker.items.length).toBeGreaterThan(0);
    });

    // On NATS, messages the server sent as the first consumer unsubscribed come back after
    // ackWait (a pull request cannot be cancelled): a short one keeps this test quick.
    test('close() lets the running batch finish; a new consumer resumes without loss', async () => {
      const { bus, peer } = ctx;
      const count = 10;
      const firstBatches = new Collector<number[]>();
      const release = deferred();
      let finished = false;
      const subscription = await bus.consumeBatch<number>(
        streamName(),
        'resume',
        async (messages) => {
          firstBatches.push(messages.map((m) => m.data));
          await release.promise;
          finished = true;
        },
        { maxBatch: 5, ackWaitMs: ACK_WAIT_MS },
      );
      await publish(range(count), 'resume');
      await firstBatches.atLeast(1);
      const closing = subscription.close();
      release.resolve();
      await closing;
      expect(finished).toBe(true);
      expect(firstBatches.items.length).toBe(1);

      const handled = firstBatches.items[0]!;
      const rest = new Collector<number>();
      await peer.consumeBatch<number>(
        streamName(),
        'resume',
        async (messages) => {
          for (const m of messages) rest.push(m.data);
        },
        { maxBatch: 5, ackWaitMs: ACK_WAIT_MS },
      );
      await rest.atLeast(count - handled.length);
      expect(sorted([...handled, ...rest.items])).toEqual(range(count));
    });
  });
}
