import { describe, expect, test } from '@jest/globals';
import { ConfigError } from '@pag/kit';
import { loadGatewayConfig } from './config.ts';

const GATEWAY_SECRET = 'a-gateway-secret-of-32-characters-or-more';

describe('auth settings', () => {
  test('AUTH_URL and the introspection client are read, the trailing slash dropped', () => {
    const config = loadGatewayConfig({
      AUTH_URL: 'http://auth.internal:8081/',
      GATEWAY_SECRET,
      DATABASE_URL: 'postgres://gateway@db.internal/pag',
      INTROSPECTION_CLIENT_ID: 'gateway',
      INTROSPECTION_CLIENT_SECRET: 'secret',
      INTROSPECTION_CACHE_MS: '2000',
      TOKEN_TAG_KEYS: `${'k'.repeat(32)}, ${'o'.repeat(32)}`,
    });
    expect(config.authUrl).toBe('http://auth.internal:8081');
    expect(config.introspection).toEqual({
      clientId: 'gateway',
      clientSecret: 'secret',
      cacheMs: 2000,
      tokenTagKeys: ['k'.repeat(32), 'o'.repeat(32)],
    });
  });

  test('without them, nothing is forwarded or introspected', () => {
    const config = loadGatewayConfig({});
    expect(config.authUrl).toBeUndefined();
    expect(config.introspection).toBeUndefined();
  });

  test('a client id without its secret fails start-up, naming the key', () => {
    expect(() => loadGatewayConfig({ INTROSPECTION_CLIENT_ID: 'gateway' })).toThrow(ConfigError);
    expect(() => loadGatewayConfig({ INTROSPECTION_CLIENT_ID: 'gateway' })).toThrow(
      /INTROSPECTION_CLIENT_SECRET/,
    );
  });

  test('checking tokens without the token tag keys, or with a short one, fails start-up, naming TOKEN_TAG_KEYS', () => {
    const env = {
      AUTH_URL: 'http://auth.internal:8081',
      DATABASE_URL: 'postgres://gateway@db.internal/pag',
      INTROSPECTION_CLIENT_ID: 'gw',
      INTROSPECTION_CLIENT_SECRET: 's',
    };
    expect(() => loadGatewayConfig(env)).toThrow(/TOKEN_TAG_KEYS: required with INTROSPECTION_CLIENT_ID/);
    expect(() => loadGatewayConfig({ ...env, TOKEN_TAG_KEYS: 'short' })).toThrow(/TOKEN_TAG_KEYS.0/);
  });

  test('checking tokens without a database to count requests in fails start-up, naming DATABASE_URL', () => {
    const env = {
      AUTH_URL: 'http://auth.internal:8081',
      GATEWAY_SECRET,
      INTROSPECTION_CLIENT_ID: 'gw',
      INTROSPECTION_CLIENT_SECRET: 's',
    };
    expect(() => loadGatewayConfig(env)).toThrow(/DATABASE_URL: required with INTROSPECTION_CLIENT_ID/);
    expect(
      loadGatewayConfig({ AUTH_URL: 'http://auth.internal:8081', GATEWAY_SECRET }).databaseUrl,
    ).toBeUndefined();
  });

  test('forwarding to the auth or proxy service needs GATEWAY_SECRET, the key of what it signs', () => {
    for (const env of [
      { AUTH_URL: 'http://auth.internal:8081' },
      { PROXY_URL: 'http://proxy.internal:8082' },
    ]) {
      expect(() => loadGatewayConfig(env)).toThrow(/GATEWAY_SECRET: required with AUTH_URL or PROXY_URL/);
      expect(() => loadGatewayConfig({ ...env, GATEWAY_SECRET: 'short' })).toThrow(
        /GATEWAY_SECRET: must be at least 32 characters/,
      );
      expect(loadGatewayConfig({ ...env, GATEWAY_SECRET }).gatewaySecret).toBe(GATEWAY_SECRET);
    }
  });
});

describe('TRUST_PROXY', () => {
  test.each([
    [undefined, false],
    ['false', false],
    ['1', 1],
    ['loopback, 10.0.0.0/8', ['loopback', '10.0.0.0/8']],
  ])('%s is %j', (value, expected) => {
    expect(loadGatewayConfig(value === undefined ? {} : { TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  test('something that is no address, range or name fails start-up, naming TRUST_PROXY', () => {
    expect(() => loadGatewayConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/99' })).toThrow(/TRUST_PROXY/);
    expect(() => loadGatewayConfig({ TRUST_PROXY: 'everyone' })).toThrow(/TRUST_PROXY/);
  });
});

describe('the budget of rejected tokens per address', () => {
  test('30 in 60 s unless set', () => {
    expect(loadGatewayConfig({}).authFailures).toEqual({ limit: 30, windowSeconds: 60 });
    const set = loadGatewayConfig({ AUTH_FAILURES_PER_ADDRESS: '5', AUTH_FAILURE_WINDOW_SECONDS: '300' });
    expect(set.authFailures).toEqual({ limit: 5, windowSeconds: 300 });
  });

  test('zero, fractions and windows over a day fail start-up, naming the key', () => {
    expect(() => loadGatewayConfig({ AUTH_FAILURES_PER_ADDRESS: '0' })).toThrow(/AUTH_FAILURES_PER_ADDRESS/);
    expect(() => loadGatewayConfig({ AUTH_FAILURES_PER_ADDRESS: '2.5' })).toThrow(
      /AUTH_FAILURES_PER_ADDRESS/,
    );
    expect(() => loadGatewayConfig({ AUTH_FAILURE_WINDOW_SECONDS: '86401' })).toThrow(
      /AUTH_FAILURE_WINDOW_SECONDS/,
    );
  });
});
