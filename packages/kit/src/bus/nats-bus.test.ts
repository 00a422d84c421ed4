/**
 * What only the NATS bus has to prove: it follows its server through a restart (readiness goes
 * false, then true again, and subscriptions work again without the service doing anything), and
 * it still closes when the server is gone; and a streamed request to a responder that does not
 * stream (an older version during a rolling deploy) ends with its plain reply, not a timeout.
 */
import { describe, expect, test } from '@jest/globals';
import { connect } from '@nats-io/transport-node';
import { eventually } from '../testing/eventually.ts';
import { startNatsServer } from '../testing/nats-server.ts';
import { NatsBus } from './nats-bus.ts';

describe('NatsBus', () => {
  test('a streamed request answered by a responder that does not stream ends with its plain reply', async () => {
    const server = await startNatsServer();
    const plain = await connect({ servers: server.url });
    try {
      // What a service of an older version does: one reply to the request's reply subject.
      plain.subscribe('plain.chat', {
        callback: (_error, message) => {
          message.respond('"one reply"');
        },
      });
      await plain.flush();
      const bus = await NatsBus.connect({ url: server.url, name: 'plain-asker' });
      const parts: unknown[] = [];
      for await (const part of bus.requestStream('plain.chat', null, { timeoutMs: 2_000 })) parts.push(part);
      expect(parts).toEqual([{ kind: 'reply', data: 'one reply' }]);
      await bus.close();
    } finally {
      await plain.close();
      await server.stop();
    }
  });

  test('readiness follows the connection and subscriptions survive a server restart', async () => {
    const first = await startNatsServer();
    const service = await NatsBus.connect({ url: first.url, name: 'restart-service' });
    await service.handle<number>('restart.double', (msg) => msg.data * 2);
    expect(service.isReady()).toBe(true);

    await first.stop();
    await eventually(() => !service.isReady(), { what: 'the bus notices the server is gone' });

    const second = await startNatsServer({ port: first.port });
    try {
      await eventually(() => service.isReady(), { what: 'the bus reconnects' });
      const client = await NatsBus.connect({ url: second.url, name: 'restart-client' });
      await expect(client.request('restart.double', 21, { timeoutMs: 2_000 })).resolves.toBe(42);
      await client.close();
    } finally {
      await second.stop();
    }

    // Shutting down while NATS is unreachable finishes instead of waiting for it.
    await eventually(() => !service.isReady(), { what: 'the bus notices the server is gone again' });
    await service.close();
    expect(service.isReady()).toBe(false);
  });
});
