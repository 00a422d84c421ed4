import { describe, expect, test } from '@jest/globals';
import { ConfigError } from '@pag/kit';
import { loadBrainConfig } from './config.ts';

describe('brain configuration', () => {
  test('defaults: ops port 9092, in-memory bus, 1.5 s for the auth service', () => {
    const config = loadBrainConfig({ DATABASE_URL: 'postgres://brain@db.internal/pag' });
    expect(config).toEqual({
      opsPort: 9092,
      host: '0.0.0.0',
      databaseUrl: 'postgres://brain@db.internal/pag',
      natsUrl: undefined,
      logLevel: 'info',
      authTimeoutMs: 1500,
    });
  });

  test('every bad key is named at once', () => {
    const load = () => loadBrainConfig({ AUTH_TIMEOUT_MS: '0', OPS_PORT: 'x' });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/DATABASE_URL/);
    expect(load).toThrow(/AUTH_TIMEOUT_MS/);
    expect(load).toThrow(/OPS_PORT/);
  });
});
