/**
 * The parts a GatewayContainer is made of and how they come and go: containers that run as compose
 * runs them, PostgreSQL and NATS as the deployment has them, and the bookkeeping that removes
 * whatever a start made, also when it fails half-way.
 */
import { SubjectTable } from '@pag/contracts';
import { renderNatsServerConfig } from '@pag/kit';
import type { StartedNetwork } from 'testcontainers';
import { GenericContainer, Wait } from 'testcontainers';
import type { DeploymentSecrets } from './secrets.ts';
import { DATABASE_USER, NATS_HOST, POSTGRES_HOST } from './services.ts';

export const NATS_IMAGE = 'local/nats:2.9';
export const POSTGRES_IMAGE = 'local/postgres:15';
/** The NATS user of natsCredentials, allowed everything. */
export const NATS_TEST_USER = 'tester';
/** A service on two shared cores, beside the others starting, takes some seconds; a stuck one fails here. */
export const STARTUP_TIMEOUT_MS = 120_000;

/**
 * compose's `init: true` and `read_only: true`: testcontainers has no builder for either
 * (generic-container.d.ts), so they go into the host config it passes to Docker as is.
 */
export class ComposeLikeContainer extends GenericContainer {
  constructor(image: string) {
    super(image);
    this.hostConfig.Init = true;
    this.hostConfig.ReadonlyRootfs = true;
    this.withTmpFs({ '/tmp': '' });
  }
}

/** Whatever start() made so far, undone in reverse order (also when start fails half-way). */
export class Teardown {
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

/**
 * Promise.all that waits for every part before failing: a container still starting when another
 * failed would otherwise be left behind by the teardown.
 */
export async function settled<T extends readonly unknown[]>(
  parts: readonly [...{ [K in keyof T]: Promise<T[K]> }],
): Promise<T> {
  const results = await Promise.allSettled(parts);
  for (const result of results) if (result.status === 'rejected') throw result.reason;
  return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

export function postgresContainer(
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
export function natsContainer(
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
