/**
 * The gateway's configuration: the only reader of the environment, parsed once at start-up.
 */

import type { Env, NatsCredentials } from '@pag/kit';
import {
  envGatewaySecret,
  envLogLevel,
  envMilliseconds,
  envPort,
  envTokenTagKeys,
  envUrl,
  natsCredentialsEnv,
  natsCredentialsFrom,
  parseConfig,
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

const GatewayEnv = z
  .object({
    PORT: envPort(8080),
    OPS_PORT: envPort(9090),
    HOST: z.string().default('0.0.0.0'),
    PUBLIC_URL: envUrl.optional(),
    NATS_URL: z.string().optional(),
    ...natsCredentialsEnv,
    GATEWAY_SECRET: envGatewaySecret.optional(),
    DATABASE_URL: envUrl.optional(),
    LOG_LEVEL: envLogLevel,
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
  })
  .refine(
    (env) => (env.INTROSPECTION_CLIENT_ID === undefined) === (env.INTROSPECTION_CLIENT_SECRET === undefined),
    {
      message: 'INTROSPECTION_CLIENT_ID and INTROSPECTION_CLIENT_SECRET are set together or not at all',
      path: ['INTROSPECTION_CLIENT_SECRET'],
    },
  )
  // Tokens are checked only with the keys their tags verify under.
  .refine((env) => env.INTROSPECTION_CLIENT_ID === undefined || env.TOKEN_TAG_KEYS !== undefined, {
    message:
      "required with INTROSPECTION_CLIENT_ID: the auth service's TOKEN_TAG_KEYS, so forged tokens are refused at once",
    path: ['TOKEN_TAG_KEYS'],
  })
  // node:http refuses a headers timeout longer than the request timeout.
  .refine((env) => env.HEADERS_TIMEOUT_MS <= env.REQUEST_TIMEOUT_MS, {
    message: 'must not exceed REQUEST_TIMEOUT_MS',
    path: ['HEADERS_TIMEOUT_MS'],
  })
  // The auth and proxy services answer only what the gateway signed.
  .refine(
    (env) => (env.AUTH_URL === undefined && env.PROXY_URL === undefined) || env.GATEWAY_SECRET !== undefined,
    {
      message:
        'required with AUTH_URL or PROXY_URL: the gateway signs what it forwards with it (the same value as the auth and proxy services)',
      path: ['GATEWAY_SECRET'],
    },
  )
  // A gateway that accepts tokens counts every agent's requests against its limits, in its database.
  .refine((env) => env.INTROSPECTION_CLIENT_ID === undefined || env.DATABASE_URL !== undefined, {
    message:
      "required with INTROSPECTION_CLIENT_ID: the gateway counts every agent's requests in its database (limits, usage)",
    path: ['DATABASE_URL'],
  });

export interface GatewayConfig {
  port: number;
  /** Port of /healthz, /readyz and /metrics, kept off the public origin. */
  opsPort: number;
  host: string;
  /**
   * The one public origin, without a trailing slash; every URL we print starts with it.
   * Unset: http://localhost:<the port actually bound>.
   */
  publicUrl: string | undefined;
  natsUrl: string | undefined;
  /** The gateway's own NATS user; unset: no sign-in. */
  natsCredentials?: NatsCredentials | undefined;
  /** Signs what the gateway forwards to the auth and proxy services; set whenever either is. */
  gatewaySecret: string | undefined;
  /** The usage counters' database; required when tokens are checked (introspection is configured). */
  databaseUrl: string | undefined;
  logLevel: string;
  bodyLimitBytes: number;
  dispatchTimeoutMs: number;
  /** Internal URL of the auth service; unset: its paths and bearer routes answer 503. */
  authUrl: string | undefined;
  /** The gateway's own confidential client at the auth service, for RFC 7662 introspection. */
  introspection:
    | { clientId: string; clientSecret: string; cacheMs: number; tokenTagKeys: string[] }
    | undefined;
  /** Internal URL of the proxy service; unset: /api/v1/services/:service/* answers 503. */
  proxyUrl: string | undefined;
  /** How long GET /api/v1/gateway/context waits for each of its parts before calling it unavailable. */
  contextPartTimeoutMs: number;
  /** A client must have sent its request headers within this (slow clients are cut off: 408). */
  headersTimeoutMs: number;
  /** A client must have sent its whole request (headers and body) within this. */
  requestTimeoutMs: number;
  /** express's 'trust proxy': who may tell the client's address (TRUST_PROXY); false: nobody. */
  trustProxy: number | string[] | false;
  /**
   * The budget of rejected tokens per client address (docs/adr/0026): at most `limit` within
   * `windowSeconds` of the first; past it the address is refused (429) until the window ends.
   */
  authFailures: { limit: number; windowSeconds: number };
}

export function loadGatewayConfig(env: Env): GatewayConfig {
  const parsed = parseConfig(GatewayEnv, env);
  return {
    port: parsed.PORT,
    opsPort: parsed.OPS_PORT,
    host: parsed.HOST,
    publicUrl: parsed.PUBLIC_URL?.replace(/\/+$/, ''),
    natsUrl: parsed.NATS_URL,
    natsCredentials: natsCredentialsFrom(parsed),
    gatewaySecret: parsed.GATEWAY_SECRET,
    databaseUrl: parsed.DATABASE_URL,
    logLevel: parsed.LOG_LEVEL,
    bodyLimitBytes: parsed.BODY_LIMIT_BYTES,
    dispatchTimeoutMs: parsed.DISPATCH_TIMEOUT_MS,
    authUrl: parsed.AUTH_URL?.replace(/\/+$/, ''),
    proxyUrl: parsed.PROXY_URL?.replace(/\/+$/, ''),
    contextPartTimeoutMs: parsed.CONTEXT_PART_TIMEOUT_MS,
    headersTimeoutMs: parsed.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: parsed.REQUEST_TIMEOUT_MS,
    trustProxy: parsed.TRUST_PROXY,
    authFailures: {
      limit: parsed.AUTH_FAILURES_PER_ADDRESS,
      windowSeconds: parsed.AUTH_FAILURE_WINDOW_SECONDS,
    },
    introspection:
      parsed.INTROSPECTION_CLIENT_ID === undefined ||
      parsed.INTROSPECTION_CLIENT_SECRET === undefined ||
      parsed.TOKEN_TAG_KEYS === undefined
        ? undefined
        : {
            clientId: parsed.INTROSPECTION_CLIENT_ID,
            clientSecret: parsed.INTROSPECTION_CLIENT_SECRET,
            cacheMs: parsed.INTROSPECTION_CACHE_MS,
            tokenTagKeys: parsed.TOKEN_TAG_KEYS,
          },
  };
}
