import { describe, expect, test } from '@jest/globals';
import { isProcessAlive } from '../lifecycle/process-alive.ts';
import { startTestBroker, testBusKind } from './test-broker.ts';

describe('testBusKind', () => {
  test('memory unless the run says nats; anything else is refused by name', () => {
    expect(testBusKind({})).toBe('memory');
    expect(testBusKind({ PAG_TEST_BUS: 'nats' })).toBe('nats');
    expect(() => testBusKind({ PAG_TEST_BUS: 'redis' })).toThrow('PAG_TEST_BUS must be "memory" or "nats"');
  });
});

describe.each([['memory'], ['nats']] as const)('startTestBroker on %s', (kind) => {
  test('connections of separate parties reach each other; close() closes them all', async () => {
    const broker = await startTestBroker({ kind });
    expect(broker.kind).toBe(kind);
    const service = await broker.connect('brain');
    const client = await broker.connect('gateway');
    await service.handle<number>('broker.double', (msg) => msg.data * 2, { queue: 'brain' });
    await expect(client.request('broker.double', 21, { timeoutMs: 2_000 })).resolves.toBe(42);

    await broker.close();
    expect(service.isReady()).toBe(false);
    expect(client.isReady()).toBe(false);
  });
});

test('on nats: a real nats-server, stopped by its pid on close()', async () => {
  const broker = await startTestBroker({ kind: 'nats' });
  const server = broker.natsServer;
  expect(server?.url).toMatch(/^nats:\/\/127\.0\.0\.1:\d+$/);
  expect(isProcessAlive(server?.pid ?? 0)).toBe(true);
  await broker.close();
  expect(isProcessAlive(server?.pid ?? 0)).toBe(false);
});

test('memory: no server', async () => {
  await using broker = await startTestBroker({ kind: 'memory' });
  expect(broker.natsServer).toBeUndefined();
});
