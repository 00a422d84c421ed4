/**
 * The auth service's configuration in embedded mode: its secrets from DATA_DIR/secrets.json
 * (unless the environment sets them), the stack's public URL and database, an internal loopback
 * listener. The stack and the `pag` commands build it the same way, so they agree on keys.
 */
import type { AuthConfig } from '@pag/auth';
import { authService } from '@pag/auth';
import type { ConfigOverrides, Env } from '@pag/kit';
import type { StackSecrets } from './secrets.ts';
import { embeddedGatewaySecret, embeddedTokenTagKey } from './secrets.ts';

/** The stack's values for the auth service's keys. */
export interface EmbeddedAuthWiring {
  publicUrl: string;
  databaseUrl: string;
  opsPort: number;
}

/** Secrets from secrets.json, as defaults: the environment's own values win. */
export function embeddedAuthDefaults(secrets: StackSecrets): Env {
  return {
    COOKIE_KEYS: secrets.cookieKeys.join(','),
    KEY_ENCRYPTION_KEY: secrets.keyEncryptionKey,
    TOKEN_HASH_KEY: secrets.tokenHashKey,
    GATEWAY_SECRET: embeddedGatewaySecret(secrets),
    TOKEN_TAG_KEYS: embeddedTokenTagKey(secrets),
  };
}

/** What the stack decides, whatever the environment says: a loopback listener, its URL, its database. */
export function embeddedAuthOverrides(
  secrets: StackSecrets,
  stack: EmbeddedAuthWiring,
): ConfigOverrides<typeof authService.config.env> {
  return {
    PORT: 0,
    HOST: '127.0.0.1',
    OPS_PORT: stack.opsPort,
    PUBLIC_URL: stack.publicUrl,
    DATABASE_URL: stack.databaseUrl,
    // The gateway's resource-server client; the proxy introspects as the same one.
    INTROSPECTION_CLIENTS: [
      { clientId: secrets.introspectionClientId, clientSecret: secrets.introspectionClientSecret },
    ],
  };
}

export function embeddedAuthConfig(env: Env, secrets: StackSecrets, stack: EmbeddedAuthWiring): AuthConfig {
  return authService.config.parse(
    { ...embeddedAuthDefaults(secrets), ...env },
    embeddedAuthOverrides(secrets, stack),
  );
}
