/**
 * A running GatewayContainer: one network, NATS and PostgreSQL, the migrations run once, every
 * chosen service's replicas, and the TCP front that is the gateway's one URL. Each container has
 * its service's name as network alias (replicas share it: Docker's DNS answers all of them), the
 * environment deploy/compose.yaml gives it, and compose's runtime (init, read-only root, /tmp a
 * tmpfs). Stop (or dispose) removes every container, the network and the front.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type {
  ContainerRuntimeClient,
  GenericContainer,
  StartedNetwork,
  StartedTestContainer,
} from 'testcontainers';
import { Network, Wait } from 'testcontainers';
import { dockerClient, INSTANCE_LABEL, requireImages, runOneShot } from './docker.ts';
import { FRONT_DRAIN_MS, TcpFront } from './front.ts';
import type { OwnerOptions } from './owner.ts';
import { Owner } from './owner.ts';
import {
  ComposeLikeContainer,
  NATS_IMAGE,
  NATS_TEST_USER,
  natsContainer,
  POSTGRES_IMAGE,
  postgresContainer,
  STARTUP_TIMEOUT_MS,
  settled,
  Teardown,
} from './parts.ts';
import { Replica } from './replica.ts';
import type { RestartOptions } from './restart.ts';
import { restartReplicas } from './restart.ts';
import { generateDeploymentSecrets } from './secrets.ts';
import type { DeploymentContext, ServiceName } from './services.ts';
import {
  DATABASE_USER,
  databaseUrl,
  HTTP_PORTS,
  migrateEnvironment,
  OPS_PORT,
  serviceEnvironment,
} from './services.ts';

/** What stop() gives a container to drain after SIGTERM before Docker kills it (testcontainers takes ms). */
const STOP_TIMEOUT_MS = 10_000;

/** What GatewayContainer's builder decided. */
export interface GatewayContainerSettings {
  readonly imageTag: string;
  /** Every service to run, the gateway and the auth service among them. */
  readonly services: readonly ServiceName[];
  readonly replicas: number;
  readonly env: Readonly<Record<string, string>>;
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
  /** Takes the replica out of the front at once, then stops its container (SIGTERM, 10 s to drain). */
  stopReplica(replica: Replica): Promise<void>;
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

/** testcontainers starts its reaper (Ryuk) with the first container; with no registry, its pull fails. */
const ryukHint = (error: unknown) =>
  error instanceof Error && /ryuk/i.test(error.message) && process.env.TESTCONTAINERS_RYUK_DISABLED !== 'true'
    ? ' (without a registry, set TESTCONTAINERS_RYUK_DISABLED=true: the Ryuk image cannot be pulled)'
    : '';

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
      teardown.add(() => running.stop({ timeout: STOP_TIMEOUT_MS }));
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
    internals.set(gw, { client, network, settings, replicas, startContainer, stopReplica });
    return gw;
  } catch (error) {
    await teardown.run().catch(() => undefined);
    if (error instanceof Error) error.message += ryukHint(error);
    throw error;
  }
}

async function stopReplica(replica: Replica): Promise<void> {
  const container = replica.container;
  replica.ready = false;
  replica.container = undefined;
  await container?.stop({ timeout: STOP_TIMEOUT_MS });
}
