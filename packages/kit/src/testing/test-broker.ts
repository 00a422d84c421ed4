/**
 * The broker a service's integration tests run on, chosen by the test run and not by the tests:
 * the in-memory broker, or a real nats-server (with JetStream, on a free port, stopped by its
 * pid) started once per test file. Each connect() opens a connection as another process would
 * (the service, a replica, a stand-in, the test's own client); close() closes every connection
 * still open, then the server. The jest project `nats` sets PAG_TEST_BUS=nats for the suites it
 * repeats (see jest.config.js and docs/adr/0035-service-suites-on-both-buses.md).
 */

import { MemoryBroker } from '../bus/memory-broker.ts';
import { MemoryBus } from '../bus/memory-bus.ts';
import { NatsBus } from '../bus/nats-bus.ts';
import type { Bus } from '../bus/types.ts';
import type { Logger } from '../log/logger.ts';
import type { NatsServer } from './nats-server.ts';
import { startNatsServer } from './nats-server.ts';

export type TestBusKind = 'memory' | 'nats';

/** The environment variable a test run chooses the bus with; unset: memory. */
export const TEST_BUS_VARIABLE = 'PAG_TEST_BUS';

export function testBusKind(env: NodeJS.ProcessEnv = process.env): TestBusKind {
  const kind = env[TEST_BUS_VARIABLE] ?? 'memory';
  if (kind === 'memory' || kind === 'nats') return kind;
  throw new Error(`${TEST_BUS_VARIABLE} must be "memory" or "nats", not "${kind}".`);
}

export interface TestBroker extends AsyncDisposable {
  readonly kind: TestBusKind;
  /** The nats-server behind a `nats` broker (its url, its pid); undefined for the in-memory one. */
  readonly natsServer: NatsServer | undefined;
  /** A new connection; `name` is the one a service would connect with (it names its inbox). */
  connect(name: string): Promise<Bus>;
  close(): Promise<void>;
}

export interface TestBrokerOptions {
  /** Unset: the bus the test run chose (testBusKind()). */
  kind?: TestBusKind;
  logger?: Logger;
}

export async function startTestBroker(options: TestBrokerOptions = {}): Promise<TestBroker> {
  const kind = options.kind ?? testBusKind();
  const { logger } = options;
  const connections: Bus[] = [];
  const opened = (bus: Bus): Bus => {
    connections.push(bus);
    return bus;
  };
  const closeConnections = async () => {
    for (const bus of connections.splice(0).reverse()) await bus.close();
  };

  if (kind === 'memory') {
    const broker = new MemoryBroker();
    const close = closeConnections;
    return {
      kind,
      natsServer: undefined,
      connect: async (_name) => opened(new MemoryBus({ broker, logger })),
      close,
      [Symbol.asyncDispose]: close,
    };
  }

  const server = await startNatsServer();
  const close = async () => {
    await closeConnections();
    await server.stop();
  };
  return {
    kind,
    natsServer: server,
    connect: async (name) => opened(await NatsBus.connect({ url: server.url, name, logger })),
    close,
    [Symbol.asyncDispose]: close,
  };
}
