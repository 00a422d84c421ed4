/**
 * A gateway on a free loopback port with an in-memory bus, for tests that drive it over HTTP.
 */
import { createLogger, createMetrics, MemoryBus } from '@pag/kit';
import { TEST_GATEWAY_SECRET } from '@pag/kit/testing';
import { loadGatewayConfig } from '../src/config.ts';
import { startGateway } from '../src/service.ts';

export interface TestGateway extends AsyncDisposable {
  /** Where to send requests (loopback). */
  url: string;
  /** What the gateway believes its public origin is (PUBLIC_URL, or its loopback URL). */
  publicUrl: string;
  bus: MemoryBus;
}

export interface TestGatewayOptions {
  /** The clock of the rejected-token budget, so a test can end its window without waiting. */
  now?: () => Date;
  /**
   * Durable publishes on these streams resolve once that consumer acknowledged (MemoryBusOptions),
   * as in the embedded mode, where the audit writer's stored row is the acknowledgement.
   */
  confirmedBy?: Record<string, string>;
}

export async function startTestGateway(
  env: Record<string, string> = {},
  options: TestGatewayOptions = {},
): Promise<TestGateway> {
  const config = loadGatewayConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    GATEWAY_SECRET: TEST_GATEWAY_SECRET,
    ...env,
  });
  const logger = createLogger({ service: 'gateway', level: 'silent' });
  const { confirmedBy, ...gatewayOptions } = options;
  const bus = new MemoryBus({ logger, confirmedBy });
  const gateway = await startGateway({
    config,
    bus,
    logger,
    metrics: createMetrics({ defaultMetrics: false }),
    ...gatewayOptions,
  });
  return {
    url: `http://127.0.0.1:${gateway.port}`,
    publicUrl: gateway.publicUrl,
    bus,
    [Symbol.asyncDispose]: async () => {
      await gateway.close();
      await bus.close();
    },
  };
}
