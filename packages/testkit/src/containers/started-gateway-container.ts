/**
 * A running GatewayContainer: one network, NATS and PostgreSQL, the migrations run once, every
 * chosen service's replicas, and the TCP front that is the gateway's one URL. Each container has
 * its service's name as network alias (replicas share it: Docker's DNS answers all of them), the
 * environment deploy/compose.yaml gives it, and compose's runtime (init, read-only root, /tmp a
 * tmpfs). Stop (or dispose) removes every container, the network and the front.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { SubjectTable } from '@pag/contracts';
import { renderNatsServerConfig } from '@pag/kit';
import type { ContainerRuntimeClient, StartedNetwork, StartedTestContainer } from 'testcontainers';
import { GenericContainer, Network, Wait } from 'testcontainers';
import { dockerClient, INSTANCE_LABEL, requireImages, runOneShot } from './docker.ts';
import { FRONT_DRAIN_MS, TcpFront } from './front.ts';
import type { GatewayContainerSettings } from './gateway-container.ts';
import type { OwnerOptions } from './owner.ts';
import { Owner } from './owner.ts';
import { Replica } from './replica.ts';
import type { RestartOptions } from './restart.ts';
import { restartReplicas } from './restart.ts';
import type { DeploymentSecrets } from './secrets.ts';
import { generateDeploymentSecrets } from './secrets.ts';
import type { DeploymentContext, ServiceName } from './services.ts';
import {
  DATABASE_USER,
  databaseUrl,
  HTTP_PORTS,
  migrateEnvironment,
  NATS_HOST,
  OPS_PORT,
  POSTGRES_HOST,
  serviceEnvironment,
} from './services.ts';

const NATS_IMAGE = 'local/nats:2.9';
const POSTGRES_IMAGE = 'local/postgres:15';
/** The NATS user of natsCredentials, allowed everything. */
const NATS_TEST_USER = 'tester';
/** A service on two shared cores, beside the others starting, takes some seconds; a stuck one fails here. */
const STARTUP_TIMEOUT_MS = 120_000;
/** What stop() gives a service to drain after SIGTERM before Docker kills it. */
const STOP_TIMEOUT_S = 10;

/**
 * compose's `init: true` and `read_only: true`: testcontainers has no builder for either
 * (generic-container.d.ts), so they go into the host config it passes to Docker as is.
 */
class ComposeLikeContainer extends GenericContainer {
  constructor(image: string) {
    super(image);
    this.hostConfig.Init = true;
    this.hostConfig.ReadonlyRootfs = true;
    this.withTmpFs({ '/tmp': '' });
  }
}

/** What a restart (restart.ts) needs of a running GatewayContainer. */
export interface GatewayContainerInternals {
  readonly client: ContainerRuntimeClient;
  readonly network: StartedNetwork;
  readonly settings: GatewayContainerSettings;
  /** Every replica of every service, in start order. */
  readonly replicas: ReadonlyMap<ServiceName, readonly Replica[]>;
  /** Starts a container for `replica` (its service's image and environment) and waits for /readyz. */
  startContainer(replica: Replica): Promise<StartedTestContainer>;
}

const internals = new WeakMap<StartedGatewayContainer, GatewayContainerInternals>();

/** For the kit's own helpers (restart): not part of the public API. */
export function gatewayContainerInternals(gw: StartedGatewayContainer): GatewayContainerInternals {
  const found = internals.get(gw);
  if (found === undefined) throw new Error('not a started GatewayContainer');
  return found;
}

export class StartedGatewayContainer implements AsyncDisposable {
  /** Labels every container of this instance: `docker ps -a --filter label=pag.testkit.instance=<id>`. */
  readonly id: string;
  /** The gateway's one URL (the TCP front), also the PUBLIC_URL and issuer the services use. */
  readonly baseUrl: string;
  /** NATS from the host (`nats://<host>:<port>`); sign in with natsCredentials. */
  readonly natsUrl: string;
  /**
   * A NATS user allowed everything, for a test that watches or drives the bus:
   * `connect({ servers: gw.natsUrl, ...gw.natsCredentials })`.
   */
  readonly natsCredentials: { readonly user: string; readonly pass: string };
  /** PostgreSQL from the host, as the schema owner. */
  readonly databaseUrl: string;
  /** The containers' network: attach your own containers (e.g. a fake upstream) to it. */
  readonly network: StartedNetwork;
  readonly #replicas: ReadonlyMap<ServiceName, readonly Replica[]>;
  readonly #pag: (args: readonly string[]) => Promise<string>;
  readonly #restart: (service: ServiceName, options?: RestartOptions) => Promise<void>;
  readonly #stop: () => Promise<void>;

  constructor(parts: {
    id: string;
    baseUrl: string;
    natsUrl: string;
    natsCredentials: { user: string; pass: string };
    databaseUrl: string;
    network: StartedNetwork;
    replicas: ReadonlyMap<ServiceName, readonly Replica[]>;
    pag: (args: readonly string[]) => Promise<string>;
    restart: (service: ServiceName, options?: RestartOptions) => Promise<void>;
    stop: () => Promise<void>;
  }) {
    this.id = parts.id;
    this.baseUrl = parts.baseUrl;
    this.natsUrl = parts.natsUrl;
    this.natsCredentials = parts.natsCredentials;
    this.databaseUrl = parts.databaseUrl;
    this.network = parts.network;
    this.#replicas = parts.replicas;
    this.#pag = parts.pag;
    this.#restart = parts.restart;
    this.#stop = parts.stop;
  }

  /**
   * What a service's containers (every replica, also replaced ones) wrote to stdout and stderr;
   * without a service, every service's, each under a `--- <service> ---` line.
   */
  async logs(service?: ServiceName): Promise<string> {
    const of = (name: ServiceName) =>
      (this.#replicas.get(name) ?? []).map((replica) => replica.logs()).join('');
    if (service !== undefined) return of(service);
    return [...this.#replicas.keys()].map((name) => `--- ${name} ---\n${of(name)}`).join('');
  }

  /**
   * Runs the operator CLI (`pag-entry pag …` in a one-shot container of the migrations image on the
   * network): its standard output; throws with its standard error when it exits non-zero.
   */
  pag(args: readonly string[]): Promise<string> {
    return this.#pag(args);
  }

  /** An owner account (`pag owner create`): email and password generated unless given. */
  createOwner(options?: OwnerOptions): Promise<Owner> {
    return Owner.create(this.#pag, options);
  }

  /**
   * Restarts a service one replica at a time, as a rolling update does (restart.ts): SIGTERM, its
   * exit awaited (it must exit 0 within `stopTimeoutMs`, else this throws with its output), a new
   * container in its place, ready before the next replica stops.
   */
  restart(service: ServiceName, options?: RestartOptions): Promise<void> {
    return this.#restart(service, options);
  }

  /** Removes every container, the network and the front. Safe to call twice. */
  stop(): Promise<void> {
    return this.#stop();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.#stop();
  }
}

/** Whatever start() made so far, undone in reverse order (also when start fails half-way). */
class Teardown {
  readonly #steps: (() => Promise<unknown>)[] = [];
  #done: Promise<void> | undefined;

  add(step: () => Promise<unknown>): void {
    this.#steps.push(step);
  }

  run(): Promise<void> {
    this.#done ??= (async () => {
      const failures: unknown[] = [];
      for (const step of this.#steps.splice(0).reverse()) await step().catch((error) => failures.push(error));
      if (failures.length > 0)
        throw new AggregateError(failures, 'GatewayContainer: some parts did not stop');
    })();
    return this.#done;
  }
}

const ryukHint = () =>
  process.env.TESTCONTAINERS_RYUK_DISABLED === 'true'
    ? ''
    : ' (without a registry, set TESTCONTAINERS_RYUK_DISABLED=true: the Ryuk image cannot be pulled)';

export async function startGatewayContainer(
  settings: GatewayContainerSettings,
): Promise<StartedGatewayContainer> {
  const client = await dockerClient();
  const image = (name: string) => `pag/${name}:${settings.imageTag}`;
  await requireImages(client, [
    ...settings.services.map(image),
    image('migrate'),
    NATS_IMAGE,
    POSTGRES_IMAGE,
  ]);

  const id = randomUUID();
  const labels = { [INSTANCE_LABEL]: id };
  const secrets = generateDeploymentSecrets();
  const natsTestPassword = randomBytes(30).toString('base64url');
  const replicas = new Map<ServiceName, Replica[]>(
    settings.services.map((service) => [
      service,
      Array.from({ length: settings.replicas }, (_, index) => new Replica(service, index)),
    ]),
  );
  const teardown = new Teardown();
  try {
    const front = await TcpFront.listen(() => replicas.get('gateway') ?? []);
    teardown.add(() => front.close());
    const context: DeploymentContext = { secrets, publicUrl: front.url };

    const network = await new Network().start();
    teardown.add(() => network.stop());
    // Built inside: a builder that throws fails its part only after the others settled.
    const started = async (make: () => GenericContainer) => {
      const running = await make().start();
      teardown.add(() => running.stop({ timeout: STOP_TIMEOUT_S }));
      return running;
    };
    const [postgres, nats] = await settled([
      started(() => postgresContainer(secrets, network, labels)),
      started(() => natsContainer(secrets, natsTestPassword, network, labels)),
    ]);
    const oneShot = (command: string[] | undefined) =>
      runOneShot(client, {
        image: image('migrate'),
        ...(command ? { command } : {}),
        env: migrateEnvironment(context),
        network: network.getName(),
        labels,
      });
    const migrations = await oneShot(undefined);
    if (migrations.exitCode !== 0)
      throw new Error(
        `the migrations (${image('migrate')}) exited with ${migrations.exitCode}:\n${migrations.stdout}${migrations.stderr}`,
      );

    const startContainer = async (replica: Replica) => {
      const port = HTTP_PORTS[replica.service];
      const container = new ComposeLikeContainer(image(replica.service))
        .withNetwork(network)
        .withNetworkAliases(replica.service)
        .withLabels({
          ...labels,
          'pag.testkit.service': replica.service,
          'pag.testkit.replica': String(replica.index),
        })
        .withEnvironment({
          ...serviceEnvironment(replica.service, context),
          // Readiness goes 503 on SIGTERM; the front sees it within a poll or two.
          SHUTDOWN_DRAIN_MS: String(FRONT_DRAIN_MS),
          ...settings.env,
        })
        .withExposedPorts(...(port === undefined ? [] : [port]), OPS_PORT)
        .withWaitStrategy(Wait.forHttp('/readyz', OPS_PORT).forStatusCode(200))
        .withStartupTimeout(STARTUP_TIMEOUT_MS)
        .withLogConsumer(replica.collectLogs);
      try {
        return await container.start();
      } catch (error) {
        throw new Error(
          `${replica.service} (replica ${replica.index}, ${image(replica.service)}) did not become ready: ` +
            `${(error as Error).message}\n--- its logs ---\n${replica.logs()}`,
          { cause: error },
        );
      }
    };
    const all = [...replicas.values()].flat();
    teardown.add(() => Promise.all(all.map((replica) => stopReplica(replica))));
    await settled(
      all.map(async (replica) => {
        replica.container = await startContainer(replica);
        replica.ready = true;
      }),
    );
    front.watchReadiness();

    const pag = async (args: readonly string[]) => {
      const result = await oneShot(['pag', ...args]);
      if (result.exitCode !== 0)
        throw new Error(
          `pag ${args.join(' ')} exited with ${result.exitCode}: ${result.stderr.trim() || result.stdout}`,
        );
      return result.stdout;
    };
    const gw = new StartedGatewayContainer({
      id,
      baseUrl: front.url,
      natsUrl: `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`,
      natsCredentials: { user: NATS_TEST_USER, pass: natsTestPassword },
      databaseUrl: databaseUrl(
        DATABASE_USER,
        secrets.POSTGRES_PASSWORD,
        `${postgres.getHost()}:${postgres.getMappedPort(5432)}`,
      ),
      network,
      replicas,
      pag,
      restart: (service, options) =>
        restartReplicas(service, { client, replicas: replicas.get(service) ?? [], startContainer }, options),
      stop: () => teardown.run(),
    });
    internals.set(gw, { client, network, settings, replicas, startContainer });
    return gw;
  } catch (error) {
    await teardown.run().catch(() => undefined);
    if (error instanceof Error) error.message += ryukHint();
    throw error;
  }
}

/**
 * Promise.all that waits for every part before failing: a container still starting when another
 * failed would otherwise be left behind by the teardown.
 */
async function settled<T extends readonly unknown[]>(
  parts: readonly [...{ [K in keyof T]: Promise<T[K]> }],
): Promise<T> {
  const results = await Promise.allSettled(parts);
  for (const result of results) if (result.status === 'rejected') throw result.reason;
  return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

async function stopReplica(replica: Replica): Promise<void> {
  const container = replica.container;
  replica.ready = false;
  replica.container = undefined;
  await container?.stop({ timeout: STOP_TIMEOUT_S });
}

function postgresContainer(
  secrets: DeploymentSecrets,
  network: StartedNetwork,
  labels: Record<string, string>,
) {
  return new GenericContainer(POSTGRES_IMAGE)
    .withNetwork(network)
    .withNetworkAliases(POSTGRES_HOST)
    .withLabels(labels)
    .withEnvironment({
      POSTGRES_USER: DATABASE_USER,
      POSTGRES_DB: 'pag',
      POSTGRES_PASSWORD: secrets.POSTGRES_PASSWORD,
    })
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forHealthCheck())
    .withStartupTimeout(STARTUP_TIMEOUT_MS);
}

/**
 * nats-server with JetStream and the deployment's configuration (each service its own user and
 * subjects, rendered from the contracts as deploy/nats/nats-server.conf is) plus the test user.
 */
function natsContainer(
  secrets: DeploymentSecrets,
  testPassword: string,
  network: StartedNetwork,
  labels: Record<string, string>,
) {
  // nats-server reads each password variable as a configuration value: a quoted string
  const passwords = Object.fromEntries(
    Object.entries({ ...secrets, [`NATS_${NATS_TEST_USER.toUpperCase()}_PASSWORD`]: testPassword })
      .filter(([name]) => name.startsWith('NATS_'))
      .map(([name, value]) => [name, `"${value}"`]),
  );
  return new GenericContainer(NATS_IMAGE)
    .withNetwork(network)
    .withNetworkAliases(NATS_HOST)
    .withLabels(labels)
    .withCopyContentToContainer([
      {
        content: renderNatsServerConfig(SubjectTable, { superuser: NATS_TEST_USER }),
        target: '/etc/nats/nats-server.conf',
      },
    ])
    .withCommand(['-c', '/etc/nats/nats-server.conf', '-p', '4222', '-m', '8222', '-js', '-sd', '/tmp/nats'])
    .withEnvironment(passwords)
    .withExposedPorts(4222)
    .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
    .withStartupTimeout(STARTUP_TIMEOUT_MS);
}
