/**
 * The auth service's configuration: the only reader of the environment, parsed once at start-up.
 *
 * What it enforces: every secret has a minimum strength (cookie keys and the token hash key at
 * least 32 characters, the key-encryption key exactly 32 bytes of base64, introspection secrets and
 * token tag keys at least 32 characters); PUBLIC_URL is an origin (the issuer, no path), required unless the
 * embedded stack starts the service; every bad key is listed at once.
 */
import type { Env, EnvValues } from '@pag/kit';
import {
  databaseEnv,
  defineConfig,
  envBoolean,
  envGatewaySecret,
  envOrigin,
  envPort,
  envTokenTagKeys,
  natsCheck,
  processEnv,
  processFrom,
} from '@pag/kit';
import { z } from 'zod';

const SECRET_MIN = 32;

const commaList = z
  .string()
  .transform((value) => value.split(',').map((item) => item.trim()))
  .pipe(z.array(z.string()));

const CookieKeys = commaList.pipe(
  z.array(z.string().min(SECRET_MIN, `each key must be at least ${SECRET_MIN} characters`)).min(1),
);

/** An ISO date, or `none` (no legacy token is looked up). */
const LegacyUntil = z.string().transform((value, ctx) => {
  if (value.trim() === 'none') return null;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) {
    ctx.addIssue({ code: 'custom', message: 'must be an ISO date such as 2027-01-31T00:00:00Z, or none' });
    return z.NEVER;
  }
  return at;
});

const KeyEncryptionKey = z
  .string()
  .transform((value) => Buffer.from(value, 'base64'))
  .refine((key) => key.length === 32, 'must be the base64 of exactly 32 bytes');

const IntrospectionClients = commaList.transform((pairs, ctx) => {
  const clients: IntrospectionClient[] = [];
  for (const pair of pairs.filter((item) => item !== '')) {
    const colon = pair.indexOf(':');
    const clientId = colon > 0 ? pair.slice(0, colon) : '';
    const clientSecret = colon > 0 ? pair.slice(colon + 1) : '';
    if (clientId === '' || clientSecret.length < SECRET_MIN) {
      ctx.addIssue({
        code: 'custom',
        message: `each entry is id:secret with a secret of at least ${SECRET_MIN} characters`,
      });
      return z.NEVER;
    }
    clients.push({ clientId, clientSecret });
  }
  return clients;
});

const seconds = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** A resource server allowed to introspect tokens (RFC 7662), authenticating with client_secret_basic. */
export interface IntrospectionClient {
  clientId: string;
  clientSecret: string;
}

const authEnv = {
  PORT: envPort(8081),
  ...processEnv(9091),
  PUBLIC_URL: envOrigin.describe('required outside embedded mode'),
  ...databaseEnv,
  GATEWAY_SECRET: envGatewaySecret,
  COOKIE_KEYS: CookieKeys,
  KEY_ENCRYPTION_KEY: KeyEncryptionKey,
  TOKEN_HASH_KEY: z.string().min(SECRET_MIN, `must be at least ${SECRET_MIN} characters`),
  TOKEN_TAG_KEYS: envTokenTagKeys,
  LEGACY_TOKENS_UNTIL: LegacyUntil.optional(),
  INTROSPECTION_CLIENTS: IntrospectionClients.default([]),
  ACCESS_TOKEN_TTL_SECONDS: seconds(3600),
  REFRESH_TOKEN_TTL_SECONDS: seconds(30 * 24 * 3600),
  TOKEN_READ_CACHE_MS: z.coerce.number().int().min(0).max(5_000).default(1_000),
  CIMD_ALLOW_LOOPBACK: envBoolean(false),
};

/** Embedded (the stack passes PUBLIC_URL itself when it knows it): the service may default it. */
const embeddedAuthEnv = { ...authEnv, PUBLIC_URL: envOrigin.optional() };

function authFrom(env: EnvValues<typeof embeddedAuthEnv>) {
  return {
    ...processFrom(env),
    /** The internal HTTP port (the gateway forwards to it); 0 picks a free one. */
    port: env.PORT,
    /**
     * The gateway's public origin without a trailing slash: the issuer and the base of every URL
     * the service prints. Unset (embedded mode, tests): the service's own URL.
     */
    publicUrl: env.PUBLIC_URL === undefined ? undefined : new URL(env.PUBLIC_URL).origin,
    databaseUrl: env.DATABASE_URL,
    /**
     * The key of the gateway's proof (GATEWAY_SECRET): every path but introspection answers only
     * requests the gateway signed, and X-Forwarded-For is believed only from them (app/gateway-only.ts).
     * Required in the environment; undefined only for a service started in-process with no gateway
     * in front (its own tests): then no proof is asked and no X-Forwarded-For believed.
     */
    gatewaySecret: env.GATEWAY_SECRET as string | undefined,
    /** Sign oidc-provider's and our own cookies; the first signs, all verify (rotation). */
    cookieKeys: env.COOKIE_KEYS,
    /** 32 bytes; encrypts the signing keys at rest (AES-256-GCM). */
    keyEncryptionKey: env.KEY_ENCRYPTION_KEY,
    /** Keys the HMAC under which oidc-provider's record ids (tokens) are stored. */
    tokenHashKey: env.TOKEN_HASH_KEY,
    /**
     * Tag every token issued (the first key) and verify presented ones (every key): a token of ours
     * whose tag does not verify is refused without a lookup. Shared with the gateway and the proxy.
     */
    tokenTagKeys: env.TOKEN_TAG_KEYS,
    /**
     * Until when tokens without our prefix (issued before it existed) are looked up; null: never.
     * Undefined: when the last stored one expires (store/legacy-cut-over.ts).
     */
    legacyTokensUntil: env.LEGACY_TOKENS_UNTIL,
    introspectionClients: env.INTROSPECTION_CLIENTS,
    accessTokenTtlSeconds: env.ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: env.REFRESH_TOKEN_TTL_SECONDS,
    /**
     * How long an access token read for introspection is kept in memory (0: never), so asking about
     * it again costs no query (store/recent-tokens.ts). At most 5 s: the introspection clients refuse
     * answers about tokens revoked in the last few seconds, which must outlast this.
     */
    tokenReadCacheMs: env.TOKEN_READ_CACHE_MS,
    /**
     * Whether a client metadata document (a client id that is a URL) may be fetched over http from
     * a loopback address: for tests that serve the document themselves; never in production
     * (provider/client-documents.ts).
     */
    cimdAllowLoopback: env.CIMD_ALLOW_LOOPBACK,
  };
}

/** The service's configuration as its own process reads it: PUBLIC_URL required. */
export const authConfig = defineConfig({ env: authEnv, checks: [natsCheck], from: authFrom });

const embeddedAuthConfig = defineConfig({ env: embeddedAuthEnv, checks: [natsCheck], from: authFrom });

export type AuthConfig = ReturnType<typeof authFrom>;

export interface LoadAuthConfigOptions {
  /** The embedded stack passes PUBLIC_URL itself when it knows it; the service may then default it. */
  embedded?: boolean;
}

export function loadAuthConfig(env: Env, options: LoadAuthConfigOptions = {}): AuthConfig {
  return (options.embedded ? embeddedAuthConfig : authConfig).parse(env);
}
