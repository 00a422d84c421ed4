/**
 * The auth service's configuration in embedded mode: its secrets from DATA_DIR/secrets.json
 * (unless the environment sets them), the stack's public URL and database, an internal loopback
 * listener. The stack and the `pag` commands build it the same way, so they agree on keys.
 */
import type { AuthConfig } from '@pag/auth';
import { loadAuthConfig } from '@pag/auth';
import type { Env } from '@pag/kit';
import type { StackSecrets } from './secrets.ts';
import { embeddedGatewaySecret, embeddedTokenTagKey } from './secrets.ts';

export function embeddedAuthConfig(
  env: Env,
  secrets: StackSecrets,
  stack: { publicUrl: string; databaseUrl: string; opsPort: number },
): AuthConfig {
  return loadAuthConfig(
    {
      COOKIE_KEYS: secrets.cookieKeys.join(','),
      KEY_ENCRYPTION_KEY: secrets.keyEncryptionKey,
      TOKEN_HASH_KEY: secrets.tokenHashKey,
      GATEWAY_SECRET: embeddedGatewaySecret(secrets),
      TOKEN_TAG_KEYS: embeddedTokenTagKey(secrets),
      ...env,
      PORT: '0',
      HOST: '127.0.0.1',
      OPS_PORT: String(stack.opsPort),
      PUBLIC_URL: stack.publicUrl,
      DATABASE_URL: stack.databaseUrl,
      INTROSPECTION_CLIENTS: `${secrets.introspectionClientId}:${secrets.introspectionClientSecret}`,
    },
    { embedded: true },
  );
}
