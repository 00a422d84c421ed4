/**
 * Chooses the bus from configuration only: NATS when a URL is given (connected before this
 * resolves), the in-memory bus otherwise (the embedded mode, one process).
 */
import type { Logger } from '../log/logger.ts';
import { MemoryBus } from './memory-bus.ts';
import { NatsBus } from './nats-bus.ts';
import type { NatsCredentials } from './nats-credentials.ts';
import type { Bus } from './types.ts';

export interface CreateBusOptions {
  natsUrl?: string | undefined;
  /** The service's own NATS user; only with natsUrl. */
  natsCredentials?: NatsCredentials | undefined;
  /** The connection name, usually the service name. */
  name: string;
  logger?: Logger;
  /**
   * In-memory bus only (MemoryBusOptions.confirmedBy): durable publishes on these streams resolve
   * once the named consumer acknowledged them. With NATS the stream itself is durable, so
   * JetStream's ack suffices and this is not used.
   */
  confirmedBy?: Record<string, string> | undefined;
}

export async function createBus(options: CreateBusOptions): Promise<Bus> {
  if (options.natsUrl)
    return NatsBus.connect({
      url: options.natsUrl,
      name: options.name,
      credentials: options.natsCredentials,
      logger: options.logger,
    });
  return new MemoryBus({ logger: options.logger, confirmedBy: options.confirmedBy });
}
