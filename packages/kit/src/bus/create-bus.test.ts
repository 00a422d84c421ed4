/** createBus picks the implementation from configuration only. */
import { describe, expect, test } from '@jest/globals';
import { startNatsServer } from '../testing/nats-server.ts';
import { createBus } from './create-bus.ts';
import { MemoryBus } from './memory-bus.ts';
import { NatsBus } from './nats-bus.ts';

describe('createBus', () => {
  test('connects to NATS when given a URL and names the URL when nothing listens', async () => {
    const server = await startNatsServer();
    const bus = await createBus({ natsUrl: server.url, name: 'create-bus' });
    expect(bus).toBeInstanceOf(NatsBus);
    expect(bus.isReady()).toBe(true);
    await bus.close();
    await server.stop();

    await expect(createBus({ natsUrl: server.url, name: 'create-bus' })).rejects.toThrow(
      `Cannot connect to NATS at ${server.url}`,
    );
  });

  test('without a URL gives the in-memory bus', async () => {
    const bus = await createBus({ name: 'embedded' });
    expect(bus).toBeInstanceOf(MemoryBus);
    await bus.close();
  });

  test('confirmedBy reaches the in-memory bus: a publish waits for the named consumer', async () => {
    const bus = await createBus({ name: 'embedded', confirmedBy: { AUDIT: 'audit-writer' } });
    await bus.ensureStream({ name: 'AUDIT', subjects: ['audit.events.>'] });
    await expect(
      bus.publishDurable('audit.events.gateway', {}, { msgId: 'e1', timeoutMs: 50 }),
    ).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    await bus.close();
  });
});
