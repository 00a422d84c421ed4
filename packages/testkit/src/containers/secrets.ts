/**
 * The secrets a deployment of the services shares, made fresh: GatewayContainer makes a set per
 * start, and deploy/make-env.sh writes a set into deploy/.env by running this file
 * (`node packages/testkit/src/containers/secrets.ts` prints `NAME=value` lines), so compose and
 * the kit cannot disagree on which secrets exist or their shape.
 */
import { randomBytes } from 'node:crypto';

/** 40 characters of base64url: passwords, HMAC keys, client secrets (safe in URLs and configs). */
const word = () => randomBytes(30).toString('base64url');
/** Base64 of 32 bytes: the AES keys (KEY_ENCRYPTION_KEY, the vault's, the brain's). */
const key = () => randomBytes(32).toString('base64');
/** Base64url of a 32-byte Ed25519 seed. */
const seed = () => randomBytes(32).toString('base64url');

const GENERATORS = {
  POSTGRES_PASSWORD: word,
  AUDIT_DB_PASSWORD: word,
  GATEWAY_SECRET: word,
  COOKIE_KEYS: word,
  KEY_ENCRYPTION_KEY: key,
  TOKEN_HASH_KEY: word,
  TOKEN_TAG_KEYS: word,
  GATEWAY_INTROSPECTION_SECRET: word,
  PROXY_INTROSPECTION_SECRET: word,
  VAULT_ENCRYPTION_KEY: key,
  BRAIN_ENCRYPTION_KEY: key,
  AUDIT_SIGNING_KEY: seed,
  NATS_GATEWAY_PASSWORD: word,
  NATS_AUTH_PASSWORD: word,
  NATS_BRAIN_PASSWORD: word,
  NATS_PROXY_PASSWORD: word,
  NATS_TRIGGER_PASSWORD: word,
  NATS_AUDIT_PASSWORD: word,
} as const;

export type DeploymentSecrets = { readonly [K in keyof typeof GENERATORS]: string };

export function generateDeploymentSecrets(): DeploymentSecrets {
  return Object.fromEntries(
    Object.entries(GENERATORS).map(([name, generate]) => [name, generate()]),
  ) as DeploymentSecrets;
}

/** The `NAME=value` lines of an env file. */
export function envFileLines(env: Readonly<Record<string, string>>): string {
  return Object.entries(env)
    .map(([name, value]) => `${name}=${value}\n`)
    .join('');
}

if (import.meta.main) process.stdout.write(envFileLines(generateDeploymentSecrets()));
