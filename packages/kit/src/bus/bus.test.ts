/**
 * Runs the bus contract against the in-memory bus and against NatsBus on a real nats-server
 * (Debian's, started on a free port for this file and stopped by its pid).
 */
import { afterAll, beforeAll } from '@jest/globals';
import type { NatsServer } from '../testing/nats-server.ts';
import { startNatsServer } from '../testing/nats-server.ts';
import { describeBusContract } from './bus-contract.ts';
import { MemoryBus } from './memory-bus.ts';
import { NatsBus } from './nats-bus.ts';
import type { Bus } from './types.ts';

function fixtureOf(first: Bus, connect: () => Promise<Bus>) {
  const all: Bus[] = [first];
  return {
    bus: first,
    makePeer: async () => {
      const peer = await connect();
      all.push(peer);
      return peer;
    },
    close: async () => {
      await Promise.all(all.map((b) => b.close()));
    },
  };
}

describeBusContract('MemoryBus', async () => {
  const bus = new MemoryBus();
  return fixtureOf(bus, async () => bus.peer());
});

let server: NatsServer;
beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(() => server?.stop());

describeBusContract('NatsBus', async () => {
  const connect = () => NatsBus.connect({ url: server.url, name: 'bus-contract' });
  return fixtureOf(await connect(), connect);
});
