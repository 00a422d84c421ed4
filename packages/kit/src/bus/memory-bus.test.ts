/**
 * What only the in-memory bus has to prove beyond the shared contract: receivers never share
 * objects, and a stream drops what every durable consumer is done with (bounded memory in the
 * embedded mode) and, while no consumer exists yet, keeps only the newest messages; the broker's
 * kept audiences of subjects follow every subscription and stream that comes or goes.
 */
import { describe, expect, test } from '@jest/globals';
import { Collector } from './bus-test-helpers.ts';
import type { BrokerSubscription, RoutedMessage } from './memory-broker.ts';
import { AUDIENCES_KEPT, MemoryBroker } from './memory-broker.ts';
import { MemoryBus } from './memory-bus.ts';
import { MemoryStream, RETAINED_WITHOUT_CONSUMER } from './memory-stream.ts';

describe('MemoryBus', () => {
  test('each subscriber gets its own copy of the payload', async () => {
    const bus = new MemoryBus();
    const seen = new Collector<{ list: string[] }>();
    for (const name of ['a', 'b']) {
      await bus.subscribe<{ list: string[] }>('copies', (msg) => {
        msg.data.list.push(name);
        seen.push(msg.data);
      });
    }
    const payload = { list: [] as string[] };
    await bus.publish('copies', payload);
    const [first, second] = await seen.atLeast(2);
    expect([first?.list.length, second?.list.length, payload.list.length]).toEqual([1, 1, 0]);
    await bus.close();
  });

  test('a stream keeps messages until every durable consumer acknowledged them', async () => {
    const bus = new MemoryBus();
    await bus.ensureStream({ name: 'EVENTS', subjects: ['events.>'] });
    const stream = bus.broker.stream('EVENTS')!;
    const consume = (name: string, seen: Collector<unknown>) =>
      bus.consume('EVENTS', name, async (msg) => seen.push(msg.data));
    for (const id of ['1', '2']) await bus.publishDurable('events.x', id, { msgId: id });

    const fast = new Collector<unknown>();
    let subscription = await consume('fast', fast);
    await fast.atLeast(2);
    await subscription.close();
    // The only consumer is done with both.
    expect([stream.message(1), stream.message(2)]).toEqual([undefined, undefined]);

    // "slow" starts after they are gone, then stops before message 3 arrives.
    const slow = new Collector<unknown>();
    await (await consume('slow', slow)).close();
    await bus.publishDurable('events.x', '3', { msgId: '3' });
    subscription = await consume('fast', fast);
    await fast.atLeast(3);
    await subscription.close();
    expect(stream.message(3)?.data).toBe('"3"');

    subscription = await consume('slow', slow);
    expect(await slow.atLeast(1)).toEqual(['3']);
    await subscription.close();
    expect(stream.message(3)).toBeUndefined();
    await bus.close();
  });

  test('without any consumer a stream keeps the newest messages only', () => {
    const stream = new MemoryStream('AUDIT', ['audit.>']);
    const total = RETAINED_WITHOUT_CONSUMER + 5;
    for (let i = 1; i <= total; i++)
      stream.store({ subject: 'audit.x', data: String(i), headers: {}, msgId: `m${i}` });
    expect(stream.message(5)).toBeUndefined();
    expect(stream.message(6)?.data).toBe('6');
    expect(stream.message(total)?.data).toBe(String(total));
  });

  test('a stream with subjects overlapping another stream is refused', async () => {
    const bus = new MemoryBus();
    await bus.ensureStream({ name: 'A', subjects: ['orders.*'] });
    await expect(bus.ensureStream({ name: 'B', subjects: ['*.created'] })).rejects.toThrow(
      /overlaps stream A/,
    );
    await bus.close();
  });
});

describe('MemoryBroker', () => {
  const message = (subject: string): RoutedMessage => ({ subject, data: '""', headers: {} });
  /** A subscription that tells `seen` its name for each message it receives. */
  const member = (
    name: string,
    pattern: string,
    seen: Collector<string>,
    queue?: string,
  ): BrokerSubscription => ({
    pattern,
    queue,
    deliver: () => seen.push(name),
  });

  test('a subscription that comes or goes after a subject was routed counts from the next message', async () => {
    const broker = new MemoryBroker();
    const seen = new Collector<string>();
    broker.subscribe(member('plain', 'orders.*', seen));
    expect(broker.route(message('orders.created'))).toBe(1);
    const removeA = broker.subscribe(member('a', 'orders.>', seen, 'workers'));
    broker.subscribe(member('b', 'orders.created', seen, 'workers'));
    expect(broker.route(message('orders.created'))).toBe(2);
    expect(broker.route(message('orders.created'))).toBe(2);
    expect(broker.route(message('orders.created'))).toBe(2);
    // The queue group's members take turns.
    expect((await seen.atLeast(7)).slice(1).sort()).toEqual(['a', 'a', 'b', 'plain', 'plain', 'plain']);
    removeA();
    for (let i = 0; i < 2; i++) expect(broker.route(message('orders.created'))).toBe(2);
    expect((await seen.atLeast(11)).slice(7).sort()).toEqual(['b', 'b', 'plain', 'plain']);
    expect(broker.route(message('orders.deleted'))).toBe(1);
    expect(broker.route(message('payments.created'))).toBe(0);
  });

  test('more subjects than it keeps are still routed to their subscribers', async () => {
    const broker = new MemoryBroker();
    const seen = new Collector<string>();
    broker.subscribe(member('even', 'n.*.even', seen));
    broker.subscribe(member('all', 'n.>', seen));
    const total = AUDIENCES_KEPT + 10;
    let receivers = 0;
    for (let round = 0; round < 2; round++)
      for (let i = 0; i < total; i++)
        receivers += broker.route(message(`n.${i}.${i % 2 === 0 ? 'even' : 'odd'}`));
    expect(receivers).toBe(2 * (total + total / 2));
    expect((await seen.atLeast(receivers)).filter((name) => name === 'even')).toHaveLength(total);
  });

  test('the stream of a subject follows the streams as they are made and changed', () => {
    const broker = new MemoryBroker();
    expect(broker.streamFor('orders.created')).toBeUndefined();
    broker.ensureStream({ name: 'ORDERS', subjects: ['orders.*'] });
    expect(broker.streamFor('orders.created')?.name).toBe('ORDERS');
    broker.ensureStream({ name: 'ORDERS', subjects: ['orders.paid'] });
    expect(broker.streamFor('orders.created')).toBeUndefined();
    broker.ensureStream({ name: 'ALL', subjects: ['orders.created'] });
    expect(broker.streamFor('orders.created')?.name).toBe('ALL');
  });
});
