/**
 * One service, from its definition, for tests that drive it from outside (the model:
 * testcontainers-node's modules, `await using started = await startService(…)`): a fresh
 * PostgreSQL with the service's migrations in its own schema, the bus the test chooses (the
 * in-memory one, or a real nats-server on a free port), and the service started with its config
 * parsed from `env` as in production, what startService decides passed as typed overrides.
 *
 * The test gets its own connection to the same bus (`bus`, as the gateway would ask) and can open
 * more (`connect()`, e.g. for a stand-in of another service). Dispose stops the service first,
 * then the connections, the nats-server and PostgreSQL, each by the handle it was started with.
 */
import type {
  Bus,
  ConfigOverrides,
  Env,
  EnvShape,
  RunningService,
  ServiceDefinition,
  ServiceProcessConfig,
} from '@pag/kit';
import { applyMigrations, createBus, createLogger, createMetrics, MemoryBus } from '@pag/kit';
import type { NatsServer, TestPostgres } from '@pag/kit/testing';
import { startNatsServer, startTestPostgres } from '@pag/kit/testing';

export interface StartServiceOptions<S extends EnvShape> {
  /** `memory`: one in-memory broker for the service and the test; `nats`: a real nats-server. */
  bus: 'memory' | 'nats';
  /** The service's environment, as strings (as in production); LOG_LEVEL defaults to silent. */
  env?: Env;
  /** Keys replaced by typed values after the ones startService sets (database, bus, loopback). */
  overrides?: ConfigOverrides<S>;
}

export interface StartedService<C, R> extends AsyncDisposable {
  /** What the definition's start() gave back. */
  readonly service: R;
  readonly config: C;
  /** A fresh PostgreSQL holding the service's schema, migrated. */
  readonly postgres: TestPostgres;
  /** The nats-server, with `bus: 'nats'`. */
  readonly nats: NatsServer | undefined;
  /** The test's own connection to the service's bus. */
  readonly bus: Bus;
  /** Another connection to the same bus, closed with the rest. */
  connect(name?: string): Promise<Bus>;
  /** Another replica of the service on the same database and bus (closed with the rest). */
  startReplica(): Promise<R>;
  close(): Promise<void>;
}

export async function startService<
  S extends EnvShape,
  C extends ServiceProcessConfig,
  R extends RunningService,
>(definition: ServiceDefinition<S, C, R>, options: StartServiceOptions<S>): Promise<StartedService<C, R>> {
  const closers: (() => Promise<void>)[] = [];
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      for (const closer of closers.splice(0).reverse()) await closer();
    })();
    return closing;
  };
  try {
    const postgres = await startTestPostgres();
    closers.push(() => postgres.stop());
    await applyMigrations({ databaseUrl: postgres.url, ...definition.database });
    const nats = options.bus === 'nats' ? await startNatsServer() : undefined;
    if (nats !== undefined) closers.push(() => nats.stop());

    const env: Env = { HOST: '127.0.0.1', PORT: '0', OPS_PORT: '0', LOG_LEVEL: 'silent', ...options.env };
    // Keys of kit's fragments, which every service's config spreads in (config/fragments.ts).
    const decided = { DATABASE_URL: postgres.url, NATS_URL: nats?.url } as ConfigOverrides<S>;
    const config = definition.config.parse(env, { ...decided, ...options.overrides });
    const logger = createLogger({ service: definition.name, level: config.logLevel });
    const broker = nats === undefined ? new MemoryBus({ logger }) : undefined;
    const connect = async (name = 'test'): Promise<Bus> => {
      const bus = broker?.peer() ?? (await createBus({ natsUrl: nats?.url, name, logger }));
      closers.push(() => bus.close());
      return bus;
    };
    if (broker !== undefined) closers.push(() => broker.close());
    const startReplica = async (): Promise<R> => {
      const bus = await connect(definition.name);
      const replica = await definition.start({
        config,
        bus,
        logger,
        metrics: createMetrics({ defaultMetrics: false }),
      });
      closers.push(() => replica.close());
      return replica;
    };
    const bus = broker ?? (await connect());
    const service = await startReplica();
    return {
      service,
      config,
      postgres,
      nats,
      bus,
      connect,
      startReplica,
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
