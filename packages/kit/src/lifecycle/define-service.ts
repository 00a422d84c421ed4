/**
 * A service is one definition: its name, its configuration (config/define-config.ts), where its
 * tables live, what it answers on the bus, and how it starts on a bus, logger and metrics registry it is given. runService
 * (its own process), the migrate command, the embedded stack and the testkit's startService all
 * read the same definition, so a new service is wired by writing this once.
 */

import type { AnyEndpoint } from '@pag/contracts';
import type { z } from 'zod';
import type { EndpointHandler } from '../bus/serve-endpoints.ts';
import type { Bus } from '../bus/types.ts';
import type { ConfigDefinition } from '../config/define-config.ts';
import type { ServiceProcessConfig } from '../config/fragments.ts';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../ops/metrics.ts';

/** Where a service's tables live: its own Postgres schema and its SQL migrations. */
export interface ServiceDatabase {
  readonly schema: string;
  readonly migrationsDir: string;
}

export interface ServiceDeps<C> {
  config: C;
  bus: Bus;
  logger: Logger;
  /** The process's metrics registry (shared by every service in embedded mode). */
  metrics: Metrics;
}

/** What start() gives back: closed once, finishing in-flight work. */
export interface RunningService {
  close(): Promise<void>;
}

/** What the ready line names (e.g. the URL callers use) and what the ready log line adds. */
export interface ReadyLine {
  names: string;
  fields?: Record<string, unknown>;
}

export interface ServiceDefinition<
  S extends z.ZodRawShape = z.ZodRawShape,
  C extends ServiceProcessConfig = ServiceProcessConfig,
  R extends RunningService = RunningService,
> {
  /** The service's name: its logger's, its NATS connection's and its ready line's. */
  readonly name: string;
  readonly config: ConfigDefinition<S, C>;
  readonly database: ServiceDatabase;
  /**
   * What it answers on the bus: one handler per contract endpoint (kit's `handle`), which start()
   * serves with serveEndpoints on the deps it builds. Every endpoint the contracts address to this
   * service is here (test/service-definitions.test.ts), so a new one is one contract entry, one
   * handler file, one line in the service's `src/endpoints.ts`.
   */
  // biome-ignore lint/suspicious/noExplicitAny: each service's handlers take its own deps; read here only for their endpoints.
  readonly endpoints: readonly EndpointHandler<AnyEndpoint, any>[];
  start(deps: ServiceDeps<C>): Promise<R>;
  /** The ready line of its own process; unset: the name and the ops port. */
  ready?(service: R, opsPort: number): ReadyLine;
}

/**
 * A definition whose config and running type are not known here (lists of services): the
 * migrate command and the stack's migrations read only its name and database.
 */
// biome-ignore lint/suspicious/noExplicitAny: any service's shape, config and running type, read only by name and database.
export type AnyServiceDefinition = ServiceDefinition<any, any, any>;

export function defineService<
  S extends z.ZodRawShape,
  C extends ServiceProcessConfig,
  R extends RunningService,
>(definition: ServiceDefinition<S, C, R>): ServiceDefinition<S, C, R> {
  return Object.freeze({ ...definition });
}

export function readyLine<R extends RunningService>(
  definition: ServiceDefinition<z.ZodRawShape, ServiceProcessConfig, R>,
  service: R,
  opsPort: number,
): ReadyLine {
  return definition.ready?.(service, opsPort) ?? { names: `${definition.name} (ops port ${opsPort})` };
}
