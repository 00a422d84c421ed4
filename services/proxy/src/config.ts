/**
 * The proxy service's configuration: the only reader of the environment, parsed once at start-up.
 *
 * What it enforces: the vault's key ring (vaultKeyRing below) holds at least one key, each the
 * base64 of exactly 32 bytes under a short unique id, and the active id names one of them (the
 * vault cannot open otherwise, so start-up stops); the introspection client is complete (the service introspects
 * every token itself); CONNECTOR_BASE_URLS is a JSON object naming known connectors with absolute
 * http(s) URLs; the upstream timeout stays a timeout. Every bad key is listed at once.
 */

import { providerSchema } from '@pag/contracts';
import type { Env } from '@pag/kit';
import {
  databaseEnv,
  defineConfig,
  envBoolean,
  envGatewaySecret,
  envMilliseconds,
  envOrigin,
  envPort,
  envTokenTagKeys,
  envUrl,
  natsCheck,
  parseConfig,
  processEnv,
  processFrom,
} from '@pag/kit';
import { z } from 'zod';
import { CONNECTOR_NAMES } from './connectors/catalogue.ts';
import { KEY_ID, legacyKeyId, VaultKeyRing } from './vault/key-ring.ts';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const KEY_LENGTH = 'must be the base64 of exactly 32 bytes (openssl rand -base64 32)';

const VaultKey = z
  .string()
  .refine((value) => BASE64.test(value), 'must be base64')
  .transform((value) => Buffer.from(value, 'base64'))
  .refine((key) => key.length === 32, KEY_LENGTH)
  .optional();

/** `id:base64,id:base64`: the key ring, e.g. `k2:…,k1:…` while k1's rows are rotated to k2. */
const VaultKeys = z
  .string()
  .transform((text, ctx) => {
    const keys = new Map<string, Buffer>();
    for (const entry of text.split(',').map((part) => part.trim())) {
      const [id = '', value = '', extra] = entry.split(':');
      if (!KEY_ID.test(id) || extra !== undefined) {
        ctx.addIssue({
          code: 'custom',
          message: 'must list id:base64 pairs, ids of letters, digits, _ and -',
        });
      } else if (keys.has(id)) {
        ctx.addIssue({ code: 'custom', message: `names key ${id} twice` });
      } else if (!BASE64.test(value) || Buffer.from(value, 'base64').length !== 32) {
        ctx.addIssue({ code: 'custom', message: `key ${id} ${KEY_LENGTH}` });
      } else {
        keys.set(id, Buffer.from(value, 'base64'));
      }
    }
    return keys;
  })
  .optional();

const VAULT_ENV = {
  VAULT_KEYS: VaultKeys,
  VAULT_ACTIVE_KEY_ID: z.string().regex(KEY_ID, 'must be a key id of VAULT_KEYS').optional(),
  VAULT_ENCRYPTION_KEY: VaultKey,
};

type VaultEnv = { [K in keyof typeof VAULT_ENV]?: z.output<(typeof VAULT_ENV)[K]> };

/**
 * The ring: VAULT_KEYS' keys, and VAULT_ENCRYPTION_KEY's (the one key of before) under its
 * derived id; active: VAULT_ACTIVE_KEY_ID, else VAULT_KEYS' first, else VAULT_ENCRYPTION_KEY's.
 */
function vaultKeyRing(env: VaultEnv): VaultKeyRing {
  const keys = new Map(env.VAULT_KEYS ?? []);
  const legacy = env.VAULT_ENCRYPTION_KEY;
  if (legacy !== undefined && !keys.has(legacyKeyId(legacy))) keys.set(legacyKeyId(legacy), legacy);
  const first = keys.keys().next().value ?? '';
  return new VaultKeyRing(keys, env.VAULT_ACTIVE_KEY_ID ?? first);
}

function vaultCheck(env: VaultEnv, issue: (key: string, message: string) => void): void {
  if (env.VAULT_KEYS === undefined && env.VAULT_ENCRYPTION_KEY === undefined) {
    issue(
      'VAULT_KEYS',
      'required (or VAULT_ENCRYPTION_KEY): id:base64 pairs of 32 random bytes (openssl rand -base64 32)',
    );
  } else if (env.VAULT_ACTIVE_KEY_ID !== undefined) {
    const ids = [...(env.VAULT_KEYS?.keys() ?? [])];
    if (env.VAULT_ENCRYPTION_KEY !== undefined) ids.push(legacyKeyId(env.VAULT_ENCRYPTION_KEY));
    if (!ids.includes(env.VAULT_ACTIVE_KEY_ID))
      issue('VAULT_ACTIVE_KEY_ID', `names no key of the ring (${ids.join(', ')})`);
  }
}

const HttpUrl = envUrl.refine(
  (value) => ['http:', 'https:'].includes(new URL(value).protocol),
  'must be an http(s) URL',
);

const BaseUrlOverrides = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({
        code: 'custom',
        message: 'must be a JSON object such as {"github":"http://127.0.0.1:9000"}',
      });
      return z.NEVER;
    }
  })
  .pipe(
    z.record(
      z.string().refine((name) => CONNECTOR_NAMES.includes(name), {
        message: `names a connector of the catalogue (${CONNECTOR_NAMES.join(', ')})`,
      }),
      HttpUrl,
    ),
  );

const JsonText = (example: string) =>
  z.string().transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: `must be JSON such as ${example}` });
      return z.NEVER;
    }
  });

const Client = z.object({ clientId: z.string().min(1).max(500), clientSecret: z.string().min(1).max(2000) });

/** This deployment's OAuth clients by connector name (catalogue or CONNECTOR_CUSTOM names). */
const Clients = JsonText('{"github":{"clientId":"…","clientSecret":"…"}}').pipe(z.record(z.string(), Client));

/**
 * The deployment's own OAuth 2.0 connectors: each a full definition (the catalogue's schema)
 * with its client; every URL https unless CONNECTOR_ALLOW_LOOPBACK (tests) lets loopback use http.
 */
function customConnectors(raw: unknown, allowLoopback: boolean) {
  return z
    .array(z.intersection(providerSchema({ allowLoopback }), z.object({ client: Client })))
    .max(50)
    .refine((list) => new Set(list.map((item) => item.name)).size === list.length, 'names must be unique')
    .refine(
      (list) => list.every((item) => !CONNECTOR_NAMES.includes(item.name)),
      'a name of the catalogue cannot be reused',
    )
    .safeParse(raw);
}

export const proxyConfig = defineConfig({
  env: {
    PORT: envPort(8082),
    ...processEnv(9092),
    PUBLIC_URL: envOrigin,
    ...databaseEnv,
    GATEWAY_SECRET: envGatewaySecret,
    ...VAULT_ENV,
    AUTH_URL: envUrl,
    INTROSPECTION_CLIENT_ID: z.string().min(1),
    INTROSPECTION_CLIENT_SECRET: z.string().min(1),
    INTROSPECTION_CACHE_MS: envMilliseconds(5_000),
    TOKEN_TAG_KEYS: envTokenTagKeys,
    CONNECTOR_BASE_URLS: BaseUrlOverrides.default({}),
    UPSTREAM_TIMEOUT_MS: envMilliseconds(8_000),
    BODY_LIMIT_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .max(100 * 1024 * 1024)
      .default(10 * 1024 * 1024),
    CONNECTOR_CLIENTS: Clients.default({}),
    CONNECTOR_CUSTOM: JsonText('[{"name":"acme","displayName":"Acme",…}]').default([]),
    CONNECTOR_ALLOW_LOOPBACK: envBoolean(false),
    TOKEN_REFRESH_MARGIN_MS: envMilliseconds(60_000),
    CONNECT_STATE_TTL_MS: envMilliseconds(10 * 60_000),
    PROXY_MAX_RESPONSE_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .max(1024 * 1024 * 1024)
      .default(64 * 1024 * 1024),
  },
  checks: [
    natsCheck,
    vaultCheck,
    (env, issue) => {
      const parsed = customConnectors(env.CONNECTOR_CUSTOM, env.CONNECTOR_ALLOW_LOOPBACK);
      if (!parsed.success) {
        for (const problem of parsed.error.issues)
          issue('CONNECTOR_CUSTOM', `${problem.path.join('.') || 'list'}: ${problem.message}`);
      }
      const known = [...CONNECTOR_NAMES, ...(parsed.data ?? []).map((item) => item.name)];
      for (const name of Object.keys(env.CONNECTOR_CLIENTS)) {
        if (!known.includes(name)) issue('CONNECTOR_CLIENTS', `names no connector: ${name}`);
      }
    },
  ],
  from: (env) => ({
    ...processFrom(env),
    /** The HTTP port the gateway forwards /api/v1/services/* to; 0 picks a free one. */
    port: env.PORT,
    /** The gateway's public origin; tokens must be issued for `${publicUrl}/api/v1`. */
    publicUrl: new URL(env.PUBLIC_URL).origin,
    databaseUrl: env.DATABASE_URL,
    /** Requests must carry the gateway's proof under this key (GATEWAY_SECRET; kit's gateway-proof.ts). */
    gatewaySecret: env.GATEWAY_SECRET,
    /** The key-encryption keys wrapping each vault token's data key, and the active one. */
    keyRing: vaultKeyRing(env),
    /** Internal URL of the auth service, for RFC 7662 introspection. */
    authUrl: env.AUTH_URL.replace(/\/+$/, ''),
    /**
     * The proxy's own confidential client at the auth service; with the auth service's
     * TOKEN_TAG_KEYS: a token whose tag verifies under none is refused at once.
     */
    introspection: {
      clientId: env.INTROSPECTION_CLIENT_ID,
      clientSecret: env.INTROSPECTION_CLIENT_SECRET,
      cacheMs: env.INTROSPECTION_CACHE_MS,
      tokenTagKeys: env.TOKEN_TAG_KEYS,
    },
    /** A connected service that has not started its answer within this long is a 504. */
    upstreamTimeoutMs: env.UPSTREAM_TIMEOUT_MS,
    /** Largest request body forwarded to a connected service. */
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    /** The catalogue's settings here: base URLs, OAuth clients, the deployment's own connectors. */
    connectors: {
      baseUrls: env.CONNECTOR_BASE_URLS,
      clients: env.CONNECTOR_CLIENTS,
      custom: customConnectors(env.CONNECTOR_CUSTOM, env.CONNECTOR_ALLOW_LOOPBACK).data ?? [],
      /** Owners' own connectors may use http on loopback (tests only; docs/adr/0068). */
      allowLoopback: env.CONNECTOR_ALLOW_LOOPBACK,
    },
    /** An OAuth access token expiring within this long is refreshed before a call. */
    refreshMarginMs: env.TOKEN_REFRESH_MARGIN_MS,
    /** How long the state of a connect flow stays valid. */
    connectStateTtlMs: env.CONNECT_STATE_TTL_MS,
    /** Largest answer of a connected service passed back (502 UPSTREAM_RESPONSE_TOO_LARGE past it). */
    maxResponseBytes: env.PROXY_MAX_RESPONSE_BYTES,
  }),
});

export type ProxyConfig = ReturnType<typeof proxyConfig.parse>;

/**
 * The vault's key ring alone (VAULT_KEYS, VAULT_ACTIVE_KEY_ID, VAULT_ENCRYPTION_KEY), for operator
 * commands that store credentials or rotate keys without running the service (they need the
 * database and these keys, nothing else).
 */
export function loadVaultKeyRing(env: Env): VaultKeyRing {
  const schema = z
    .object(VAULT_ENV)
    .superRefine((values, ctx) =>
      vaultCheck(values, (key, message) => ctx.addIssue({ code: 'custom', path: [key], message })),
    );
  return vaultKeyRing(parseConfig(schema, env));
}

export function loadProxyConfig(env: Env): ProxyConfig {
  return proxyConfig.parse(env);
}
