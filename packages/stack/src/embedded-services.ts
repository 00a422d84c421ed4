/**
 * The services of the embedded stack, in start order, each with what the stack passes it: defaults
 * the environment may replace (secrets from DATA_DIR/secrets.json) and typed config overrides that
 * always win (loopback ports, the public URL, the database, the URLs of services started before).
 *
 * Order: the audit service first, so every event published from then on is committed (in
 * embedded mode a publish on the AUDIT stream resolves only once its row is); then auth (the
 * others introspect at it); the brain before the gateway, so its first requests find the brain's
 * subjects answered; the trigger service after the brain (its scheduler asks brain.prompt.run)
 * and before the gateway, which dispatches its routes; the proxy on its own loopback port before
 * the gateway, which hands /api/v1/services/* to it in process (docs/adr/0069). In embedded mode the proxy and the
 * gateway introspect as the one resource-server client of INTROSPECTION_CLIENTS, and verify
 * tokens with the auth service's TOKEN_TAG_KEYS.
 */
import { auditService } from '@pag/audit';
import { authService } from '@pag/auth';
import { brainService } from '@pag/brain';
import { gatewayService, startGateway } from '@pag/gateway';
import type {
  AnyServiceDefinition,
  Bus,
  ConfigOverrides,
  Env,
  EnvShape,
  Metrics,
  RunningService,
  ServiceDefinition,
  ServiceDeps,
  ServiceProcessConfig,
} from '@pag/kit';
import { createLogger } from '@pag/kit';
import { proxyService } from '@pag/proxy';
import { triggerService } from '@pag/trigger';
import { embeddedAuthDefaults, embeddedAuthOverrides } from './auth-config.ts';
import type { StackSecrets } from './secrets.ts';
import {
  embeddedAuditSigningKey,
  embeddedBrainKey,
  embeddedGatewaySecret,
  embeddedVaultKey,
} from './secrets.ts';

/** What the stack knows before any service starts. */
export interface StackFacts {
  env: Env;
  secrets: StackSecrets;
  /** The gateway's port, resolved before the auth service starts (its issuer names it). */
  port: number;
  publicUrl: string;
  databaseUrl: string;
  /** The audit service's own login (it may only read and append the log). */
  auditDatabaseUrl: string;
  opsPort: number;
}

export interface EmbeddedService<
  S extends EnvShape = EnvShape,
  C extends ServiceProcessConfig = ServiceProcessConfig,
  R extends RunningService = RunningService,
> {
  readonly definition: ServiceDefinition<S, C, R>;
  defaults?(facts: StackFacts): Env;
  overrides(facts: StackFacts, wiring: StackWiring): ConfigOverrides<S>;
  /**
   * How it starts when it takes more than its definition's deps from the services started before
   * it (typed by its own start function); unset: the definition's start.
   */
  start?(deps: ServiceDeps<C>, wiring: StackWiring): Promise<R>;
}

/** Checks each entry's overrides against its own definition's keys. */
function embed<S extends EnvShape, C extends ServiceProcessConfig, R extends RunningService>(
  service: EmbeddedService<S, C, R>,
  // biome-ignore lint/suspicious/noExplicitAny: the list holds services of different config types; embed() checked each.
): EmbeddedService<any, any, any> {
  return service;
}

// biome-ignore lint/suspicious/noExplicitAny: services of different config types, each checked by embed().
export const EMBEDDED_SERVICES: readonly EmbeddedService<any, any, any>[] = [
  embed({
    definition: auditService,
    defaults: (facts) => ({ AUDIT_SIGNING_KEY: embeddedAuditSigningKey(facts.secrets) }),
    overrides: (facts) => ({ DATABASE_URL: facts.auditDatabaseUrl }),
  }),
  embed({
    definition: authService,
    defaults: (facts) => embeddedAuthDefaults(facts.secrets),
    overrides: (facts) => embeddedAuthOverrides(facts.secrets, facts),
  }),
  embed({
    definition: brainService,
    defaults: (facts) => ({ BRAIN_ENCRYPTION_KEY: embeddedBrainKey(facts.secrets) }),
    overrides: (facts) => ({ DATABASE_URL: facts.databaseUrl }),
  }),
  embed({
    definition: triggerService,
    overrides: (facts) => ({ DATABASE_URL: facts.databaseUrl }),
  }),
  embed({
    definition: proxyService,
    defaults: (facts) => ({
      VAULT_ENCRYPTION_KEY: embeddedVaultKey(facts.secrets),
      GATEWAY_SECRET: embeddedGatewaySecret(facts.secrets),
    }),
    overrides: (facts, wiring) => ({
      PORT: 0,
      HOST: '127.0.0.1',
      OPS_PORT: facts.opsPort,
      PUBLIC_URL: facts.publicUrl,
      DATABASE_URL: facts.databaseUrl,
      AUTH_URL: wiring.started(authService).url,
      INTROSPECTION_CLIENT_ID: facts.secrets.introspectionClientId,
      INTROSPECTION_CLIENT_SECRET: facts.secrets.introspectionClientSecret,
      TOKEN_TAG_KEYS: wiring.configOf(authService).tokenTagKeys,
    }),
  }),
  embed({
    definition: gatewayService,
    defaults: (facts) => ({ GATEWAY_SECRET: embeddedGatewaySecret(facts.secrets) }),
    overrides: (facts, wiring) => ({
      PORT: facts.port,
      OPS_PORT: facts.opsPort,
      PUBLIC_URL: facts.publicUrl,
      DATABASE_URL: facts.databaseUrl,
      AUTH_URL: wiring.started(authService).url,
      // Still set: the proxy's listener stays up for the separate-process shape's checks and
      // operators; the gateway hands the calls over in process (start, below).
      PROXY_URL: wiring.started(proxyService).url,
      INTROSPECTION_CLIENT_ID: facts.secrets.introspectionClientId,
      INTROSPECTION_CLIENT_SECRET: facts.secrets.introspectionClientSecret,
      TOKEN_TAG_KEYS: wiring.configOf(authService).tokenTagKeys,
    }),
    // /api/v1/services/* goes to the proxy by a function call, not over loopback (docs/adr/0069).
    start: (deps, wiring) => startGateway({ ...deps, proxy: wiring.started(proxyService).inProcess }),
  }),
];

/** The services started so far and their configs, looked up by definition (typed by it). */
export class StackWiring {
  readonly #facts: StackFacts;
  readonly #configs = new Map<AnyServiceDefinition, unknown>();
  readonly #running = new Map<AnyServiceDefinition, unknown>();

  constructor(facts: StackFacts) {
    this.#facts = facts;
  }

  async start(
    // biome-ignore lint/suspicious/noExplicitAny: any entry of EMBEDDED_SERVICES.
    service: EmbeddedService<any, any, any>,
    shared: { bus: Bus; metrics: Metrics; logLevel: string },
  ): Promise<RunningService> {
    const { definition } = service;
    const env = { ...service.defaults?.(this.#facts), ...this.#facts.env };
    const config = definition.config.parse(env, service.overrides(this.#facts, this));
    this.#configs.set(definition, config);
    const deps = {
      config,
      bus: shared.bus,
      logger: createLogger({ service: definition.name, level: shared.logLevel }),
      metrics: shared.metrics,
    };
    const running = await (service.start?.(deps, this) ?? definition.start(deps));
    this.#running.set(definition, running);
    return running;
  }

  configOf<C extends ServiceProcessConfig>(definition: ServiceDefinition<EnvShape, C, RunningService>): C {
    return this.#lookUp(this.#configs, definition) as C;
  }

  started<R extends RunningService>(definition: ServiceDefinition<EnvShape, ServiceProcessConfig, R>): R {
    return this.#lookUp(this.#running, definition) as R;
  }

  #lookUp(map: Map<AnyServiceDefinition, unknown>, definition: AnyServiceDefinition): unknown {
    if (!map.has(definition))
      throw new Error(`${definition.name} is wired before it starts: check the order of EMBEDDED_SERVICES`);
    return map.get(definition);
  }
}
