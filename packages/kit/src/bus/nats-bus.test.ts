/**
 * What only the NATS bus has to prove: it follows its server through a restart (readiness goes
 * false, then true again, and subscriptions work again without the service doing anything).
 */
import { describe, expect, test } from '@jest/globals';
import { startNatsServer } from '../testing/nats-server.ts';
import { until } from './bus-test-helpers.ts';
import { createBus } from './create-bus.ts';
import { NatsBus } from './nats-bus.ts';

describe('NatsBus', () => {
  test.only('readiness follows the connection and subscriptions survive a server restart', async () => {
    const first = await startNatsServer();
    await using server = { [Symbol.asyncDispose]: () => first.stop() };
    void server;
    const service = await NatsBus.connect({ url: first.url, name: 'restart-service' });
    try {
      await service.handle<number>('restart.double', (msg) => msg.data * 2);
      expect(service.isReady()).toBe(true);

      await first.stop();
      await until(() => !service.isReady(), 'the bus notices the server is gone');

      await using second = await startNatsServer({ port: first.port });
      await until(() => service.isReady(), 'the bus reconnects');
      const client = await NatsBus.connect({ url: second.url, name: 'restart-client' });
      await expect(client.request('restart.double', 21, { timeoutMs: 2_000 })).resolves.toBe(42);
      await client.close();
    } catch (e) { console.log('STACK', (e as Error).stack, (e as Error).cause); throw e; } finally {
      await service.close();
    }
  });

  test('createBus connects to NATS when given a URL and fails clearly when nothing listens', async () => {
    await using server = await startNatsServer();
    const bus = await createBus({ natsUrl: server.url, name: 'create-bus' });
    expect(bus).toBeInstanceOf(NatsBus);
    expect(bus.isReady()).toBe(true);
    await bus.close();

    const stopped = server.url;
    await server.stop();
    await expect(createBus({ natsUrl: stopped, name: 'create-bus' })).rejects.toThrow();
  });
});
