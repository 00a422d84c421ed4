import { describe, expect, test } from '@jest/globals';
import { ConfigError } from '@pag/kit';
import { loadGatewayConfig } from './config.ts';

describe('auth settings', () => {
  test('AUTH_URL and the introspection client are read, the trailing slash dropped', () => {
    const config = loadGatewayConfig({
      AUTH_URL: 'http://auth.internal:8081/',
      INTROSPECTION_CLIENT_ID: 'gateway',
      INTROSPECTION_CLIENT_SECRET: 'secret',
      INTROSPECTION_CACHE_MS: '2000',
    });
    expect(config.authUrl).toBe('http://auth.internal:8081');
    expect(config.introspection).toEqual({ clientId: 'gateway', clientSecret: 'secret', cacheMs: 2000 });
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
});
