/**
 * The gateway's configuration: the only reader of the environment, parsed once at start-up.
 */

import type { ConfigCheck, Env, EnvValues } from '@pag/kit';
import {
  databaseEnv,
  defineConfig,
  envGatewaySecret,
  envMilliseconds,
  envPort,
  envTokenTagKeys,
  envUrl,
  natsCheck,
  processEnv,
  processFrom,
} from '@pag/kit';
import proxyaddr from 'proxy-addr';
import { z } from 'zod';

/**
 * Which peers may tell the client's address in X-Forwarded-For (a load balancer or ingress in
 * front of the gateway): unset or `false`, none (the socket's address counts); a number, that many
 * hops; else a comma-separated list of addresses, CIDR ranges and proxy-addr's names (`loopback`,
 * `linklocal`, `uniquelocal`), e.g. `10.0.0.0/8`.
 */
const TrustProxy = z
  .string()
  .optional()
  .transform((value, ctx): number | string[] | false => {
    const text = value?.trim() ?? '';
    if (text === '' || text === 'false') return false;
    if (/^\d+$/.test(text)) return Number(text);
    const list = text.split(',').map((entry) => entry.trim());
    try {
      proxyaddr.compile(list);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `not an address, range or name: ${(error as Error).message}` });
      return z.NEVER;
    }
    return list;
  });

type GatewayEnv = EnvValues<typeof gatewayEnv>;

const gatewayEnv = {
  PORT: envPort(8080),
  ...processEnv(9090),
  PUBLIC_URL: envUrl.optional(),
  GATEWAY_SECRET: envGatewaySecret.optional(),
  DATABASE_URL: databaseEnv.DATABASE_URL.optional(),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(50 * 1024 * 1024)
    .default(1024 * 1024),
  DISPATCH_TIMEOUT_MS: envMilliseconds(10_000),
  AUTH_URL: envUrl.optional(),
  INTROSPECTION_CLIENT_ID: z.string().min(1).optional(),
  INTROSPECTION_CLIENT_SECRET: z.string().min(1).optional(),
  INTROSPECTION_CACHE_MS: envMilliseconds(5_000),
  TOKEN_TAG_KEYS: envTokenTagKeys.optional(),
  PROXY_URL: envUrl.optional(),
  CONTEXT_PART_TIMEOUT_MS: envMilliseconds(2_000),
  HEADERS_TIMEOUT_MS: envMilliseconds(10_000),
  REQUEST_TIMEOUT_MS: envMilliseconds(30_000),
  TRUST_PROXY: TrustProxy,
  AUTH_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).max(1_000_000).default(30),
  AUTH_FAILURE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
};

/** The checks across keys, each naming the key to fix. */
const checks: ConfigCheck<typeof gatewayEnv>[] = [
  natsCheck,
  (env, issue) => {
    if ((env.INTROSPECTION_CLIENT_ID === undefined) !== (env.INTROSPECTION_CLIENT_SECRET === undefined))
      issue(
        'INTROSPECTION_CLIENT_SECRET',
        'INTROSPECTION_CLIENT_ID and INTROSPECTION_CLIENT_SECRET are set together or not at all',
      );
  },
  // Tokens are checked only with the keys their tags verify under.
  (env, issue) => {
    if (env.INTROSPECTION_CLIENT_ID !== undefined && env.TOKEN_TAG_KEYS === undefined)
      issue(
        'TOKEN_TAG_KEYS',
        "required with INTROSPECTION_CLIENT_ID: the auth service's TOKEN_TAG_KEYS, so forged tokens are refused at once",
      );
  },
  // node:http refuses a headers timeout longer than the request timeout.
  (env, issue) => {
    if (env.HEADERS_TIMEOUT_MS > env.REQUEST_TIMEOUT_MS)
      issue('HEADERS_TIMEOUT_MS', 'must not exceed REQUEST_TIMEOUT_MS');
  },
  // The auth and proxy services answer only what the gateway signed.
  (env, issue) => {
    if ((env.AUTH_URL !== undefined || env.PROXY_URL !== undefined) && env.GATEWAY_SECRET === undefined)
      issue(
        'GATEWAY_SECRET',
        'required with AUTH_URL or PROXY_URL: the gateway signs what it forwards with it (the same value as the auth and proxy services)',
      );
  },
  // A gateway that accepts tokens counts every agent's requests against its limits, in its database.
  (env, issue) => {
    if (env.INTROSPECTION_CLIENT_ID !== undefined && env.DATABASE_URL === undefined)
      issue(
        'DATABASE_URL',
        "required with INTROSPECTION_CLIENT_ID: the gateway counts every agent's requests in its database (limits, usage)",
      );
  },
];

/** The gateway's own confidential client at the auth service, for RFC 7662 introspection. */
function introspectionFrom(env: GatewayEnv) {
  return env.INTROSPECTION_CLIENT_ID === undefined ||
    env.INTROSPECTION_CLIENT_SECRET === undefined ||
    env.TOKEN_TAG_KEYS === undefined
    ? undefined
    : {
        clientId: env.INTROSPECTION_CLIENT_ID,
        clientSecret: env.INTROSPECTION_CLIENT_SECRET,
        cacheMs: env.INTROSPECTION_CACHE_MS,
        tokenTagKeys: env.TOKEN_TAG_KEYS,
      };
}

export const gatewayConfig = defineConfig({
  env: gatewayEnv,
  checks,
  from: (env) => ({
    ...processFrom(env),
    port: env.PORT,
    /**
     * The one public origin, without a trailing slash; every URL we print starts with it.
     * Unset: http://localhost:<the port actually bound>.
     */
    publicUrl: env.PUBLIC_URL?.replace(/\/+$/, ''),
    /** Signs what the gateway forwards to the auth and proxy services; set whenever either is. */
    gatewaySecret: env.GATEWAY_SECRET,
    /** The usage counters' database; required when tokens are checked (introspection is configured). */
    databaseUrl: env.DATABASE_URL,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    dispatchTimeoutMs: env.DISPATCH_TIMEOUT_MS,
    /** Internal URL of the auth service; unset: its paths and bearer routes answer 503. */
    authUrl: env.AUTH_URL?.replace(/\/+$/, ''),
    introspection: introspectionFrom(env),
    /** Internal URL of the proxy service; unset: /api/v1/services/{service}/{path} answers 503. */
    proxyUrl: env.PROXY_URL?.replace(/\/+$/, ''),
    /** How long GET /api/v1/gateway/context waits for each of its parts before calling it unavailable. */
    contextPartTimeoutMs: env.CONTEXT_PART_TIMEOUT_MS,
    /** A client must have sent its request headers within this (slow clients are cut off: 408). */
    headersTimeoutMs: env.HEADERS_TIMEOUT_MS,
    /** A client must have sent its whole request (headers and body) within this. */
    requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
    /** express's 'trust proxy': who may tell the client's address (TRUST_PROXY); false: nobody. */
    trustProxy: env.TRUST_PROXY,
    /**
     * The budget of rejected tokens per client address (docs/adr/0026): at most `limit` within
     * `windowSeconds` of the first; past it the address is refused (429) until the window ends.
     */
    authFailures: { limit: env.AUTH_FAILURES_PER_ADDRESS, windowSeconds: env.AUTH_FAILURE_WINDOW_SECONDS },
  }),
});

export type GatewayConfig = ReturnType<typeof gatewayConfig.parse>;

export function loadGatewayConfig(env: Env): GatewayConfig {
  return gatewayConfig.parse(env);
}
