/**
 * The publish/subscribe part of the bus contract: fan-out, wildcards, queue groups, unsubscribe.
 */
import { describe, expect, test } from '@jest/globals';
import type { BusContractContext } from './bus-test-helpers.ts';
import { barrier, Collector } from './bus-test-helpers.ts';
import type { BusMessage } from './types.ts';

export function describeEventContract(ctx: BusContractContext): void {
  describe('publish/subscribe', () => {
    test('every matching subscriber gets the event, wildcards as NATS matches them', async () => {
      const { bus, peer, subject } = ctx;
      const exact = new Collector<BusMessage>();
      const oneToken = new Collector<BusMessage>();
      const tail = new Collector<BusMessage>();
      const other = new Collector<BusMessage>();
      await peer.subscribe(`${subject}.orders.created`, exact.push);
      await peer.subscribe(`${subject}.orders.*`, oneToken.push);
      await bus.subscribe(`${subject}.>`, tail.push);
      await bus.subscribe(`${subject}.*`, other.push);

      await bus.publish(`${subject}.orders.created`, { id: 1 }, { headers: { 'X-Request-Id': 'r1' } });
      await bus.publish(`${subject}.orders`, { id: 2 });
      await barrier(bus, [bus, peer]);

      expect(exact.items.map((m) => m.data)).toEqual([{ id: 1 }]);
      expect(exact.items[0]?.headers['X-Request-Id']).toBe('r1');
      expect(oneToken.items.map((m) => m.data)).toEqual([{ id: 1 }]);
      expect(tail.items.map((m) => m.subject)).toEqual([`${subject}.orders.created`, `${subject}.orders`]);
      expect(other.items.map((m) => m.subject)).toEqual([`${subject}.orders`]);
    });

    test('queue group members each get some and together all of the messages, none twice', async () => {
      const { bus, subject, fixture } = ctx;
      const members = [await fixture.makePeer(), await fixture.makePeer()];
      const received = members.map(() => new Collector<number>());
      const all = new Collector<number>();
      for (const [index, member] of members.entries()) {
        await member.subscribe<number>(
          subject,
          (msg) => {
            received[index]!.push(msg.data);
            all.push(msg.data);
          },
          { queue: 'workers' },
        );
      }
      const count = 40;
      for (let i = 0; i < count; i++) await bus.publish(subject, i);
      await all.atLeast(count);
      await barrier(bus, members);

      expect([...all.items].sort((a, b) => a - b)).toEqual([...Array(count).keys()]);
      for (const collector of received) expect(collector.items.length).toBeGreaterThan(0);
    });

    test('a closed subscription gets nothing more', async () => {
      const { bus, peer, subject } = ctx;
      const seen = new Collector<unknown>();
      const subscription = await peer.subscribe(subject, (msg) => seen.push(msg.data));
      await bus.publish(subject, 'before');
      await seen.atLeast(1);
      await subscription.close();
      await bus.publish(subject, 'after');
      await barrier(bus, [peer]);
      expect(seen.items).toEqual(['before']);
    });
  });
}
