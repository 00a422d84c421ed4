/**
 * One service, from its definition, for tests that drive it from outside (the model:
 * testcontainers-node's modules, `await using started = await startService(…)`): a fresh
 * PostgreSQL with the service's migrations in its own schema, the bus the test or the test run
 * chooses (the in-memory one, or a real nats-server on a free port: kit testing's startTestBroker), and the service started with its config
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
import { announcePresence, applyMigrations, createLogger, createMetrics } from '@pag/kit';
import type { NatsServer, TestBroker, TestBusKind, TestPostgres } from '@pag/kit/testing';
import { startTestBroker, startTestPostgres } from '@pag/kit/testing';

export interface StartServiceOptions<S extends EnvShape> {
  /**
   * `memory`: one in-memory broker for the service and the test; `nats`: a real nats-server on a
   * free port. Unset: what the test run chose (PAG_TEST_BUS, see kit testing's startTestBroker).
   */
  bus?: TestBusKind;
  /** The service's environment, as strings (as in production); LOG_LEVEL defaults to silent. */
  env?: Env;
  /** Keys replaced by typed values after the ones startService sets (database, bus, loopback). */
  overrides?: ConfigOverrides<S>;
  /**
   * The DATABASE_URL the service connects with, made once the migrations ran (as the superuser):
   * e.g. a login role with fewer rights (the audit service refuses to run as the tables' owner).
   * Unset: the superuser's URL.
   */
  serviceDatabaseUrl?: (postgres: TestPostgres) => Promise<string>;
}

export interface StartedService<C, R> extends AsyncDisposable {
  /** What the definition's start() gave back. */
  readonly service: R;
  readonly config: C;
  /** A fresh PostgreSQL holding the service's schema, migrated. */
  readonly postgres: TestPostgres;
  /** The broker the service and the test are connected to. */
  readonly broker: TestBroker;
  /** The nats-server, on the `nats` bus. */
  readonly nats: NatsServer | undefined;
  /** The test's own connection to the service's bus (the gateway's place). */
  readonly bus: Bus;
  /** Another connection to the same bus, as another process would hold (closed with the rest). */
  connect(name?: string): Promise<Bus>;
  /**
   * Another replica of the service on the same database and bus, on its own connection; `env`
   * adds to (or replaces) the first one's environment. Closed with the rest.
   */
  startReplica(env?: Env): Promise<R>;
  close(): Promise<void>;
}

export async function startService<
  S extends EnvShape,
  C extends ServiceProcessConfig,
  R extends RunningService,
>(
  definition: ServiceDefinition<S, C, R>,
  options: StartServiceOptions<S> = {},
): Promise<StartedService<C, R>> {
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
    const logger = createLogger({ service: definition.name, level: 'silent' });
    // Every connection opened by connect() is closed by the broker, after the replicas on them.
    const broker = await startTestBroker({ kind: options.bus, logger });
    closers.push(() => broker.close());
    const nats = broker.natsServer;

    const env: Env = { HOST: '127.0.0.1', PORT: '0', OPS_PORT: '0', LOG_LEVEL: 'silent', ...options.env };
    // Keys of kit's fragments, which every service's config spreads in (config/fragments.ts).
    const databaseUrl = (await options.serviceDatabaseUrl?.(postgres)) ?? postgres.url;
    const decided = { DATABASE_URL: databaseUrl, NATS_URL: nats?.url } as ConfigOverrides<S>;
    const configFor = (more: Env) =>
      definition.config.parse({ ...env, ...more }, { ...decided, ...options.overrides });
    const config = configFor({});
    const connect = (name = 'test'): Promise<Bus> => broker.connect(name);
    const startReplica = async (more: Env = {}): Promise<R> => {
      const replicaBus = await connect(definition.name);
      const replica = await definition.start({
        config: configFor(more),
        bus: replicaBus,
        logger: createLogger({ service: definition.name, level: config.logLevel }),
        metrics: createMetrics({ defaultMetrics: false }),
      });
      closers.push(() => replica.close());
      // Closed before the replica: the directory drops it before it stops answering.
      closers.push(await announcePresence(definition.name, { bus: replicaBus }));
      return replica;
    };
    // The test's connection first, as the gateway's: the service's requests of others (e.g. the
    // brain asking auth.account.get) find it there.
    const bus = await connect('gateway');
    const service = await startReplica();
    return {
      service,
      config,
      postgres,
      broker,
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
