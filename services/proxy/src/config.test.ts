import { randomBytes } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { ConfigError } from '@pag/kit';
import { loadProxyConfig, loadVaultKey } from './config.ts';

const base = {
  PUBLIC_URL: 'https://gateway.example.com',
  DATABASE_URL: 'postgres://pag@127.0.0.1:5432/pag',
  VAULT_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  AUTH_URL: 'http://auth.internal:8081',
  INTROSPECTION_CLIENT_ID: 'proxy',
  INTROSPECTION_CLIENT_SECRET: 'a-secret',
  TOKEN_TAG_KEYS: 'k'.repeat(32),
};

function issuesOf(env: Record<string, string>): readonly string[] {
  try {
    loadProxyConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('proxy config', () => {
  test('defaults and parsed values', () => {
    const config = loadProxyConfig({ ...base, CONNECTOR_BASE_URLS: '{"github":"http://127.0.0.1:9000/"}' });
    expect(config).toMatchObject({
      port: 8082,
      publicUrl: 'https://gateway.example.com',
      upstreamTimeoutMs: 8_000,
      bodyLimitBytes: 10 * 1024 * 1024,
      connectorBaseUrls: { github: 'http://127.0.0.1:9000/' },
      introspection: { clientId: 'proxy', clientSecret: 'a-secret', cacheMs: 5_000 },
    });
    expect(config.vaultKey).toHaveLength(32);
  });

  test('a missing or malformed vault key stops start-up, named', () => {
    const { VAULT_ENCRYPTION_KEY: _key, ...withoutKey } = base;
    expect(issuesOf(withoutKey)).toEqual([expect.stringMatching(/^VAULT_ENCRYPTION_KEY: /)]);
    expect(issuesOf({ ...base, VAULT_ENCRYPTION_KEY: randomBytes(16).toString('base64') })).toEqual([
      expect.stringContaining('VAULT_ENCRYPTION_KEY: must be the base64 of exactly 32 bytes'),
    ]);
    expect(issuesOf({ ...base, VAULT_ENCRYPTION_KEY: 'not base64 at all!' })).toEqual([
      'VAULT_ENCRYPTION_KEY: must be base64',
    ]);
    expect(() => loadVaultKey({})).toThrow(ConfigError);
  });

  test('every bad key is listed at once', () => {
    const issues = issuesOf({
      PUBLIC_URL: 'https://gateway.example.com/api',
      CONNECTOR_BASE_URLS: '{"myspace":"http://127.0.0.1:1","github":"ftp://x"}',
    });
    const keys = issues.map((issue) => issue.split(':')[0]);
    expect(keys).toEqual(
      expect.arrayContaining([
        'PUBLIC_URL',
        'DATABASE_URL',
        'VAULT_ENCRYPTION_KEY',
        'AUTH_URL',
        'INTROSPECTION_CLIENT_ID',
        'INTROSPECTION_CLIENT_SECRET',
        'TOKEN_TAG_KEYS',
        'CONNECTOR_BASE_URLS.myspace',
        'CONNECTOR_BASE_URLS.github',
      ]),
    );
    expect(issuesOf({ ...base, CONNECTOR_BASE_URLS: '{oops' })).toEqual([
      expect.stringContaining('CONNECTOR_BASE_URLS: must be a JSON object'),
    ]);
  });
});
