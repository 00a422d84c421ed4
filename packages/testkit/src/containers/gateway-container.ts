/**
 * The whole gateway in containers for an integration test, as testcontainers-node's modules are
 * built: configure with `withX()`, `start()`, dispose.
 *
 *   await using gw = await new GatewayContainer().withServices('all').start();
 *   const owner = await gw.createOwner({ plan: 'pro' });
 *   const token = await owner.createToken({ scopes: ['full'], daily: 100 });
 *
 * Images `pag/<service>:<tag>` (deploy/build.sh makes them); the tag is `withImageTag()`, else
 * PAG_IMAGE_TAG, else this package's version.
 */
import { readFileSync } from 'node:fs';
import type { ServiceName } from './services.ts';
import { REQUIRED_SERVICES, SERVICE_NAMES } from './services.ts';
import type { GatewayContainerSettings, StartedGatewayContainer } from './started-gateway-container.ts';
import { startGatewayContainer } from './started-gateway-container.ts';

const PACKAGE_VERSION: string = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;

export type ServiceSelection = 'all' | readonly ServiceName[];

export class GatewayContainer {
  #imageTag: string | undefined;
  #services: ServiceSelection = 'all';
  #replicas = 1;
  #env: Record<string, string> = {};
  readonly #processEnv: NodeJS.ProcessEnv;

  /** `env`: where PAG_IMAGE_TAG is read (default `process.env`). */
  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.#processEnv = env;
  }

  /** The tag of the `pag/*` images (default: PAG_IMAGE_TAG, else the package's version). */
  withImageTag(tag: string): this {
    this.#imageTag = tag;
    return this;
  }

  /** `'all'` (the default) or a list; the gateway and the auth service always run. */
  withServices(services: ServiceSelection): this {
    this.#services = services;
    return this;
  }

  /** Runs every chosen service `count` times (default 1); the gateway's replicas share one baseUrl. */
  withReplicas(count: number): this {
    if (!Number.isInteger(count) || count < 1)
      throw new RangeError(`replicas must be a whole number ≥ 1, not ${count}`);
    this.#replicas = count;
    return this;
  }

  /** Adds to (or replaces) the environment of every service container, e.g. `{ LOG_LEVEL: 'debug' }`. */
  withEnv(env: Readonly<Record<string, string>>): this {
    this.#env = { ...this.#env, ...env };
    return this;
  }

  settings(): GatewayContainerSettings {
    const chosen = this.#services === 'all' ? SERVICE_NAMES : this.#services;
    return {
      imageTag: this.#imageTag ?? (this.#processEnv.PAG_IMAGE_TAG || PACKAGE_VERSION),
      services: SERVICE_NAMES.filter((name) => REQUIRED_SERVICES.includes(name) || chosen.includes(name)),
      replicas: this.#replicas,
      env: this.#env,
    };
  }

  /** Starts NATS, PostgreSQL, the migrations and every service; resolves once all are ready. */
  start(): Promise<StartedGatewayContainer> {
    return startGatewayContainer(this.settings());
  }
}
