import { randomBytes } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { ConfigError } from '@pag/kit';
import { loadProxyConfig, loadVaultKeyRing } from './config.ts';
import { legacyKeyId } from './vault/key-ring.ts';

const base = {
  PUBLIC_URL: 'https://gateway.example.com',
  DATABASE_URL: 'postgres://pag@127.0.0.1:5432/pag',
  VAULT_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  AUTH_URL: 'http://auth.internal:8081',
  INTROSPECTION_CLIENT_ID: 'proxy',
  INTROSPECTION_CLIENT_SECRET: 'a-secret',
  GATEWAY_SECRET: 'a-gateway-secret-of-32-characters-or-more',
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
      connectors: expect.objectContaining({ baseUrls: { github: 'http://127.0.0.1:9000/' } }),
      introspection: { clientId: 'proxy', clientSecret: 'a-secret', cacheMs: 5_000 },
    });
    expect(config.keyRing.active).toHaveLength(32);
  });

  test('a missing or malformed vault key stops start-up, named', () => {
    const { VAULT_ENCRYPTION_KEY: _key, ...withoutKey } = base;
    expect(issuesOf(withoutKey)).toEqual([
      expect.stringMatching(/^VAULT_KEYS: required \(or VAULT_ENCRYPTION_KEY\)/),
    ]);
    expect(issuesOf({ ...base, VAULT_ENCRYPTION_KEY: randomBytes(16).toString('base64') })).toEqual([
      expect.stringContaining('VAULT_ENCRYPTION_KEY: must be the base64 of exactly 32 bytes'),
    ]);
    expect(issuesOf({ ...base, VAULT_ENCRYPTION_KEY: 'not base64 at all!' })).toEqual([
      'VAULT_ENCRYPTION_KEY: must be base64',
    ]);
    expect(() => loadVaultKeyRing({})).toThrow(ConfigError);
  });

  test('VAULT_ENCRYPTION_KEY alone: a ring of one key under the id derived from it', () => {
    const key = Buffer.from(base.VAULT_ENCRYPTION_KEY, 'base64');
    const ring = loadProxyConfig(base).keyRing;
    expect(ring.ids).toEqual([legacyKeyId(key)]);
    expect(ring.activeId).toBe(legacyKeyId(key));
    expect(ring.active.equals(key)).toBe(true);
  });

  test('VAULT_KEYS: the ring by id, the first active unless VAULT_ACTIVE_KEY_ID names another', () => {
    const k1 = randomBytes(32);
    const k2 = randomBytes(32);
    const VAULT_KEYS = `k2:${k2.toString('base64')}, k1:${k1.toString('base64')}`;
    const { VAULT_ENCRYPTION_KEY: legacy, ...withoutKey } = base;
    const ring = loadProxyConfig({ ...withoutKey, VAULT_KEYS }).keyRing;
    expect(ring.ids).toEqual(['k2', 'k1']);
    expect(ring.activeId).toBe('k2');
    expect(ring.key('k1').equals(k1)).toBe(true);
    expect(loadVaultKeyRing({ VAULT_KEYS, VAULT_ACTIVE_KEY_ID: 'k1' }).activeId).toBe('k1');
    // The key of before joins the ring under its derived id, so its rows stay readable.
    const both = loadProxyConfig({ ...base, VAULT_KEYS }).keyRing;
    expect(both.ids).toEqual(['k2', 'k1', legacyKeyId(Buffer.from(legacy, 'base64'))]);
    expect(both.activeId).toBe('k2');
  });

  test('a malformed key ring or an active id outside it is named', () => {
    const key = randomBytes(32).toString('base64');
    expect(issuesOf({ ...base, VAULT_KEYS: `k1:${key},k1:${key}` })).toEqual([
      'VAULT_KEYS: names key k1 twice',
    ]);
    expect(issuesOf({ ...base, VAULT_KEYS: `k1:${randomBytes(16).toString('base64')}` })).toEqual([
      expect.stringContaining('VAULT_KEYS: key k1 must be the base64 of exactly 32 bytes'),
    ]);
    expect(issuesOf({ ...base, VAULT_KEYS: key })).toEqual([
      'VAULT_KEYS: must list id:base64 pairs, ids of letters, digits, _ and -',
    ]);
    expect(issuesOf({ ...base, VAULT_KEYS: `k1:${key}`, VAULT_ACTIVE_KEY_ID: 'k9' })).toEqual([
      expect.stringMatching(/^VAULT_ACTIVE_KEY_ID: names no key of the ring \(k1, key-/),
    ]);
  });

  test('GATEWAY_SECRET is required, at least 32 characters', () => {
    const { GATEWAY_SECRET: _secret, ...withoutSecret } = base;
    expect(issuesOf(withoutSecret)).toEqual([expect.stringMatching(/^GATEWAY_SECRET: /)]);
    expect(issuesOf({ ...base, GATEWAY_SECRET: 'short' })).toEqual([
      expect.stringContaining('GATEWAY_SECRET: must be at least 32 characters'),
    ]);
  });

  test('NATS credentials: one way of signing in, only with NATS_URL', () => {
    expect(
      loadProxyConfig({ ...base, NATS_URL: 'nats://nats:4222', NATS_USER: 'proxy', NATS_PASSWORD: 'pw' }),
    ).toMatchObject({ natsCredentials: { kind: 'password', user: 'proxy', password: 'pw' } });
    expect(
      loadProxyConfig({ ...base, NATS_URL: 'nats://nats:4222', NATS_CREDS_FILE: '/run/proxy.creds' }),
    ).toMatchObject({ natsCredentials: { kind: 'creds', file: '/run/proxy.creds' } });
    expect(loadProxyConfig(base).natsCredentials).toBeUndefined();
    expect(issuesOf({ ...base, NATS_USER: 'proxy' })).toEqual([
      expect.stringMatching(/^NATS_PASSWORD: /),
      expect.stringMatching(/^NATS_URL: required with NATS_USER/),
    ]);
    expect(
      issuesOf({
        ...base,
        NATS_URL: 'nats://nats:4222',
        NATS_USER: 'p',
        NATS_PASSWORD: 'x',
        NATS_CREDS_FILE: '/c',
      }),
    ).toEqual([expect.stringContaining('set one way of signing in to NATS')]);
    expect(issuesOf({ ...base, NATS_URL: 'nats://nats:4222', NATS_NKEY_SEED: 'not-a-seed' })).toEqual([
      expect.stringMatching(/^NATS_NKEY_SEED: must be a user nkey seed/),
    ]);
  });

  // Which vault key is missing is a check across keys (VAULT_KEYS or VAULT_ENCRYPTION_KEY), as
  // NATS's: it is reported once every single key parsed.
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
        'AUTH_URL',
        'INTROSPECTION_CLIENT_ID',
        'INTROSPECTION_CLIENT_SECRET',
        'GATEWAY_SECRET',
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
