/**
 * The one contract both buses are held to. Every test talks through the Bus interface only, and
 * "peers" are other connections to the same bus, so queue groups and durable consumers are
 * exercised across processes as in production. Waits are on events, never on time, except where
 * the behaviour under test is time itself (request timeout, ack wait).
 */
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { AppError } from '@pag/contracts';
import { barrier, Collector, deferred, uniqueName } from './bus-test-helpers.ts';
import type { Bus, BusMessage, DurableMessage } from './types.ts';

export interface BusFixture {
  bus: Bus;
  /** Another connection to the same bus, as another process would hold. */
  makePeer: () => Promise<Bus>;
  /** Closes the bus and every peer. */
  close(): Promise<void>;
}

const ACK_WAIT_MS = 300;

async function rejectionOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

export function describeBusContract(name: string, makeBus: () => Promise<BusFixture>): void {
  describe(`${name}: bus contract`, () => {
    let fixture: BusFixture;
    let bus: Bus;
    let peer: Bus;
    let subject: string;

    beforeEach(async () => {
      fixture = await makeBus();
      bus = fixture.bus;
      peer = await fixture.makePeer();
      subject = uniqueName();
    });
    afterEach(() => fixture.close());

    describe('request/reply', () => {
      test('the reply comes back with the request headers seen by the handler and no shared objects', async () => {
        await peer.handle<{ n: number; tags: string[] }>(`${subject}.echo`, (msg) => {
          msg.data.tags.push('mutated by handler');
          return { doubled: msg.data.n * 2, requestId: msg.headers['X-Request-Id'], subject: msg.subject };
        });
        const payload = { n: 21, tags: ['a'] };
        const reply = await bus.request(`${subject}.echo`, payload, {
          timeoutMs: 2_000,
          headers: { 'X-Request-Id': 'req-1' },
        });
        expect(reply).toEqual({ doubled: 42, requestId: 'req-1', subject: `${subject}.echo` });
        expect(payload.tags).toEqual(['a']);
      });

      test('a handler that does not answer in time gives UPSTREAM_TIMEOUT after about the timeout', async () => {
        const release = deferred();
        await peer.handle(subject, async () => {
          await release.promise;
          return 'too late';
        });
        const started = performance.now();
        const error = await rejectionOf(bus.request(subject, {}, { timeoutMs: 200 }));
        const elapsed = performance.now() - started;
        release.resolve();
        expect(error.code).toBe('UPSTREAM_TIMEOUT');
        expect(error.status).toBe(504);
        expect(error.message).toContain(subject);
        expect(elapsed).toBeGreaterThanOrEqual(190);
        expect(elapsed).toBeLessThan(1_500);
      });

      test('a subject nobody handles fails at once with SERVICE_UNAVAILABLE', async () => {
        const started = performance.now();
        const error = await rejectionOf(bus.request(`${subject}.nobody`, {}, { timeoutMs: 5_000 }));
        expect(error.code).toBe('SERVICE_UNAVAILABLE');
        expect(error.status).toBe(503);
        expect(error.message).toContain(`${subject}.nobody`);
        expect(performance.now() - started).toBeLessThan(1_000);
      });

      test("a handler's AppError arrives with its code, status, message, hint and headers", async () => {
        const message = 'Daily limit of 10 “requests” reached.\n  Try tomorrow. ';
        await peer.handle(subject, () => {
          throw new AppError('USAGE_LIMIT_EXCEEDED', message, {
            hint: 'Ask the owner to raise the limit; 100% safe.',
            headers: { 'Retry-After': '3600' },
          });
        });
        const error = await rejectionOf(bus.request(subject, {}, { timeoutMs: 2_000 }));
        expect(error.code).toBe('USAGE_LIMIT_EXCEEDED');
        expect(error.status).toBe(429);
        expect(error.message).toBe(message);
        expect(error.hint).toBe('Ask the owner to raise the limit; 100% safe.');
        expect(error.headers).toEqual({ 'Retry-After': '3600' });
        expect(error.expose).toBe(true);
      });

      test('an unexpected handler failure arrives as a masked INTERNAL_ERROR', async () => {
        await peer.handle(subject, () => {
          throw new Error('connection string postgres://admin:secret@db');
        });
        const error = await rejectionOf(bus.request(subject, {}, { timeoutMs: 2_000 }));
        expect(error.code).toBe('INTERNAL_ERROR');
        expect(error.status).toBe(500);
        expect(error.expose).toBe(false);
        expect(error.message).not.toContain('secret');
      });

      test('close() lets a request already being handled finish and answer', async () => {
        const release = deferred();
        const started = deferred();
        let finished = false;
        await peer.handle(subject, async () => {
          started.resolve();
          await release.promise;
          finished = true;
          return 'answered';
        });
        const reply = bus.request(subject, {}, { timeoutMs: 5_000 });
        await started.promise;
        const closing = peer.close();
        setImmediate(() => release.resolve());
        await closing;
        expect(finished).toBe(true);
        await expect(reply).resolves.toBe('answered');
        expect(peer.isReady()).toBe(false);
      });
    });

    describe('publish/subscribe', () => {
      test('every matching subscriber gets the event, wildcards as NATS matches them', async () => {
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

    describe('durable streams', () => {
      let stream: string;
      beforeEach(async () => {
        stream = uniqueName('S');
        await bus.ensureStream({ name: stream, subjects: [`${subject}.>`] });
        // Declaring it again from another process is harmless.
        await peer.ensureStream({ name: stream, subjects: [`${subject}.>`] });
      });

      test('publishDurable resolves with the stream and increasing sequence numbers', async () => {
        const acks = [];
        for (const id of ['a', 'b', 'c'])
          acks.push(await bus.publishDurable(`${subject}.e`, { id }, { msgId: id }));
        expect(acks.map((a) => a.stream)).toEqual([stream, stream, stream]);
        expect(acks.map((a) => a.duplicate)).toEqual([false, false, false]);
        expect(acks[1]!.seq).toBeGreaterThan(acks[0]!.seq);
        expect(acks[2]!.seq).toBeGreaterThan(acks[1]!.seq);
      });

      test('a subject no stream stores is refused with SERVICE_UNAVAILABLE', async () => {
        const error = await rejectionOf(
          bus.publishDurable(`${uniqueName()}.e`, {}, { msgId: 'x', timeoutMs: 2_000 }),
        );
        expect(error.code).toBe('SERVICE_UNAVAILABLE');
      });

      test('a repeated msgId is stored once and acknowledged as a duplicate', async () => {
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
        for (const id of [1, 2, 3]) await bus.publishDurable(`${subject}.e`, id, { msgId: `early${id}` });
        const firstRun = new Collector<number>();
        const subscription = await peer.consume<number>(stream, 'late', async (msg) =>
          firstRun.push(msg.data),
        );
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
    });

    test('isReady() is true while open and false after close()', async () => {
      expect(bus.isReady()).toBe(true);
      await bus.close();
      expect(bus.isReady()).toBe(false);
    });
  });
}
