/**
 * Config from the environment: one zod schema per service, parsed once at start-up.
 * A bad environment fails fast with every bad key listed, never with the first only.
 */
import { z } from 'zod';
import { TOKEN_TAG_KEY_MIN } from '../auth/token-tags.ts';

export class ConfigError extends Error {
  readonly issues: readonly string[];

  constructor(issues: readonly string[]) {
    super(`Invalid configuration:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`);
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

export type Env = Record<string, string | undefined>;

/** Parses `env` with `schema`; empty strings count as unset so `FOO=` falls back to the default. */
export function parseConfig<S extends z.ZodType>(schema: S, env: Env): z.infer<S> {
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => {
    const key = issue.path.join('.') || '(environment)';
    return `${key}: ${issue.message}`;
  });
  throw new ConfigError(issues);
}

/** Building blocks shared by the services' config schemas. */
export const envPort = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

export const envUrl = z.url({ message: 'must be an absolute URL' });

/** An origin (PUBLIC_URL of the gateway): scheme, host and port, no path, query or fragment. */
export const envOrigin = envUrl.refine((value) => {
  const url = new URL(value);
  return url.pathname.replace(/\/+$/, '') === '' && url.search === '' && url.hash === '';
}, 'must be an origin such as https://gateway.example.com (no path, query or fragment)');

export const envLogLevel = z
  .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  .default('info');

export const envBoolean = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
    .default(fallback ? 'true' : 'false')
    .transform((value) => value === 'true' || value === '1');

export const envMilliseconds = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/**
 * GATEWAY_SECRET: the one per-deployment key under which the gateway signs what it forwards to the
 * auth and proxy services (auth/gateway-proof.ts); the same value in all three.
 */
export const envGatewaySecret = z
  .string()
  .min(
    32,
    'must be at least 32 characters (e.g. `openssl rand -base64 32`), the same for gateway, auth and proxy',
  );

/**
 * TOKEN_TAG_KEYS: comma-separated keys of the tag every token carries (auth/token-tags.ts), each at
 * least TOKEN_TAG_KEY_MIN characters; the first tags new tokens, all verify. The auth service, the
 * gateway and the proxy read the same value.
 */
export const envTokenTagKeys = z
  .string()
  .transform((value) => value.split(',').map((key) => key.trim()))
  .pipe(
    z
      .array(z.string().min(TOKEN_TAG_KEY_MIN, `each key must be at least ${TOKEN_TAG_KEY_MIN} characters`))
      .min(1),
  );
