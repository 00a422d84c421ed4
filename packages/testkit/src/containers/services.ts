/**
 * The services a GatewayContainer runs and the environment each gets: the same as
 * deploy/compose.yaml gives them, down to the host names (each container has its service's name as
 * network alias, NATS is `nats`, PostgreSQL `postgres`). service-env.test.ts renders compose.yaml's
 * environment with the same secrets and compares, so the two cannot drift.
 */
import type { DeploymentSecrets } from './secrets.ts';

export const SERVICE_NAMES = ['gateway', 'auth', 'brain', 'proxy', 'trigger', 'audit'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** The services that always run: the gateway and the auth service it cannot answer without. */
export const REQUIRED_SERVICES: readonly ServiceName[] = ['gateway', 'auth'];

/** Each service's HTTP port in its container (the others answer over NATS only). */
export const HTTP_PORTS: Partial<Record<ServiceName, number>> = { gateway: 8080, auth: 8081, proxy: 8082 };
/** Every image's ops port (OPS_PORT in deploy/Dockerfile): /healthz, /readyz, /metrics. */
export const OPS_PORT = 9000;

export const POSTGRES_HOST = 'postgres';
export const NATS_HOST = 'nats';
export const DATABASE_NAME = 'pag';
/** The schema owner's login, as compose names it. */
export const DATABASE_USER = 'pag';

export interface DeploymentContext {
  readonly secrets: DeploymentSecrets;
  /** The origin clients use: the issuer of tokens and the audience. */
  readonly publicUrl: string;
}

/** A PostgreSQL URL on the deployment's network. */
export function databaseUrl(user: string, password: string, host = `${POSTGRES_HOST}:5432`): string {
  return `postgres://${user}:${password}@${host}/${DATABASE_NAME}`;
}

/** The environment of one service's containers (compose.yaml's `environment:` of it). */
export function serviceEnvironment(service: ServiceName, { secrets, publicUrl }: DeploymentContext) {
  const owner = databaseUrl(DATABASE_USER, secrets.POSTGRES_PASSWORD);
  const nats = (password: string) => ({
    NATS_URL: `nats://${NATS_HOST}:4222`,
    NATS_USER: service,
    NATS_PASSWORD: password,
  });
  switch (service) {
    case 'gateway':
      return {
        PORT: '8080',
        PUBLIC_URL: publicUrl,
        DATABASE_URL: owner,
        ...nats(secrets.NATS_GATEWAY_PASSWORD),
        AUTH_URL: 'http://auth:8081',
        PROXY_URL: 'http://proxy:8082',
        GATEWAY_SECRET: secrets.GATEWAY_SECRET,
        INTROSPECTION_CLIENT_ID: 'gateway',
        INTROSPECTION_CLIENT_SECRET: secrets.GATEWAY_INTROSPECTION_SECRET,
        TOKEN_TAG_KEYS: secrets.TOKEN_TAG_KEYS,
      };
    case 'auth':
      return {
        PORT: '8081',
        PUBLIC_URL: publicUrl,
        DATABASE_URL: owner,
        ...nats(secrets.NATS_AUTH_PASSWORD),
        GATEWAY_SECRET: secrets.GATEWAY_SECRET,
        COOKIE_KEYS: secrets.COOKIE_KEYS,
        KEY_ENCRYPTION_KEY: secrets.KEY_ENCRYPTION_KEY,
        TOKEN_HASH_KEY: secrets.TOKEN_HASH_KEY,
        TOKEN_TAG_KEYS: secrets.TOKEN_TAG_KEYS,
        INTROSPECTION_CLIENTS: `gateway:${secrets.GATEWAY_INTROSPECTION_SECRET},proxy:${secrets.PROXY_INTROSPECTION_SECRET}`,
      };
    case 'brain':
      return {
        DATABASE_URL: owner,
        ...nats(secrets.NATS_BRAIN_PASSWORD),
        BRAIN_ENCRYPTION_KEY: secrets.BRAIN_ENCRYPTION_KEY,
      };
    case 'proxy':
      return {
        PORT: '8082',
        PUBLIC_URL: publicUrl,
        DATABASE_URL: owner,
        ...nats(secrets.NATS_PROXY_PASSWORD),
        GATEWAY_SECRET: secrets.GATEWAY_SECRET,
        VAULT_ENCRYPTION_KEY: secrets.VAULT_ENCRYPTION_KEY,
        // The key ring for a rotation (compose's `${VAULT_KEYS:-}`): empty, the key above alone.
        VAULT_KEYS: '',
        VAULT_ACTIVE_KEY_ID: '',
        AUTH_URL: 'http://auth:8081',
        INTROSPECTION_CLIENT_ID: 'proxy',
        INTROSPECTION_CLIENT_SECRET: secrets.PROXY_INTROSPECTION_SECRET,
        TOKEN_TAG_KEYS: secrets.TOKEN_TAG_KEYS,
      };
    case 'trigger':
      return { DATABASE_URL: owner, ...nats(secrets.NATS_TRIGGER_PASSWORD) };
    case 'audit':
      return {
        DATABASE_URL: databaseUrl('pag_audit', secrets.AUDIT_DB_PASSWORD),
        ...nats(secrets.NATS_AUDIT_PASSWORD),
        AUDIT_SIGNING_KEY: secrets.AUDIT_SIGNING_KEY,
      };
  }
}

/**
 * The migrations image's environment (compose's `migrate`): it migrates DATABASE_URL and makes the
 * audit login; run as `pag-entry pag …` it is the operator CLI, which needs the auth service's keys
 * so the tokens it makes verify there (DATA_DIR only holds defaults these override).
 */
export function migrateEnvironment({ secrets, publicUrl }: DeploymentContext) {
  return {
    DATABASE_URL: databaseUrl(DATABASE_USER, secrets.POSTGRES_PASSWORD),
    AUDIT_DB_PASSWORD: secrets.AUDIT_DB_PASSWORD,
    DATA_DIR: '/tmp',
    AUDIT_SIGNING_KEY: secrets.AUDIT_SIGNING_KEY,
    PUBLIC_URL: publicUrl,
    COOKIE_KEYS: secrets.COOKIE_KEYS,
    KEY_ENCRYPTION_KEY: secrets.KEY_ENCRYPTION_KEY,
    TOKEN_HASH_KEY: secrets.TOKEN_HASH_KEY,
    TOKEN_TAG_KEYS: secrets.TOKEN_TAG_KEYS,
    VAULT_ENCRYPTION_KEY: secrets.VAULT_ENCRYPTION_KEY,
    VAULT_KEYS: '',
    VAULT_ACTIVE_KEY_ID: '',
  };
}
