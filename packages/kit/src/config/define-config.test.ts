import { describe, expect, test } from '@jest/globals';
import { z } from 'zod';
import { defineConfig } from './define-config.ts';
import { databaseEnv, natsCheck, processEnv, processFrom } from './fragments.ts';
import { ConfigError, envPort, envUrl } from './parse-config.ts';

const example = defineConfig({
  env: {
    PORT: envPort(8080),
    ...processEnv(9099),
    ...databaseEnv,
    AUTH_URL: envUrl,
    KEYS: z.string().transform((value) => value.split(',')),
  },
  checks: [
    natsCheck,
    (env, issue) => {
      if (env.PORT === env.OPS_PORT) issue('OPS_PORT', 'must differ from PORT');
    },
  ],
  from: (env) => ({
    ...processFrom(env),
    port: env.PORT,
    databaseUrl: env.DATABASE_URL,
    authUrl: env.AUTH_URL,
    keys: env.KEYS,
  }),
});

function issuesOf(parse: () => unknown): readonly string[] {
  try {
    parse();
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

const env = { DATABASE_URL: 'postgres://db.internal/pag', AUTH_URL: 'http://auth.internal', KEYS: 'a,b' };

describe('defineConfig', () => {
  test("the shared fragments' keys and defaults, shaped by from()", () => {
    expect(example.parse(env)).toEqual({
      logLevel: 'info',
      opsPort: 9099,
      host: '0.0.0.0',
      natsUrl: undefined,
      shutdownDrainMs: 0,
      port: 8080,
      databaseUrl: 'postgres://db.internal/pag',
      authUrl: 'http://auth.internal',
      keys: ['a', 'b'],
    });
    expect(example.parse({ ...env, SHUTDOWN_DRAIN_MS: '5000' }).shutdownDrainMs).toBe(5_000);
    expect(issuesOf(() => example.parse({ ...env, SHUTDOWN_DRAIN_MS: '-1' }))).toEqual([
      expect.stringContaining('SHUTDOWN_DRAIN_MS'),
    ]);
  });

  test('typed overrides win over the environment and stand for missing keys, never parsed as strings', () => {
    const config = example.parse(
      { PORT: '9000', KEYS: 'from,env' },
      { PORT: 0, DATABASE_URL: 'postgres://stack/pag', AUTH_URL: 'http://127.0.0.1:4000', KEYS: ['typed'] },
    );
    expect(config).toMatchObject({
      port: 0,
      databaseUrl: 'postgres://stack/pag',
      authUrl: 'http://127.0.0.1:4000',
      keys: ['typed'],
    });
  });

  test("every bad key at once, the fragments' with the service's own", () => {
    const keys = issuesOf(() => example.parse({ PORT: 'x', OPS_PORT: '70000', LOG_LEVEL: 'loud' })).map(
      (issue) => issue.split(':')[0],
    );
    expect([...keys].sort()).toEqual(['AUTH_URL', 'DATABASE_URL', 'KEYS', 'LOG_LEVEL', 'OPS_PORT', 'PORT']);
  });

  test('checks across keys run once each key parsed, and are listed together', () => {
    expect(issuesOf(() => example.parse({ ...env, PORT: '9099', NATS_USER: 'svc' }))).toEqual([
      expect.stringMatching(/^NATS_PASSWORD: NATS_USER and NATS_PASSWORD are set together/),
      expect.stringMatching(/^NATS_URL: required with NATS_USER/),
      'OPS_PORT: must differ from PORT',
    ]);
  });

  test('an override settles a key its check reads', () => {
    expect(example.parse({ ...env, PORT: '9099' }, { OPS_PORT: 0 }).opsPort).toBe(0);
  });

  test('an override naming no key of the config is a mistake, said at once', () => {
    expect(() => example.parse(env, { DATABSE_URL: 'x' } as never)).toThrow(/DATABSE_URL/);
  });
});
