import { describe, expect, test } from '@jest/globals';
import { ConfigError } from '@pag/kit';
import { loadAuthConfig } from './config.ts';

const SECRET = 'a'.repeat(32);
const VALID = {
  PUBLIC_URL: 'https://gateway.example.com/',
  DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/pag',
  COOKIE_KEYS: `${SECRET}, ${'b'.repeat(40)}`,
  KEY_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
  TOKEN_HASH_KEY: SECRET,
  TOKEN_TAG_KEYS: `${'d'.repeat(32)},${'e'.repeat(32)}`,
  INTROSPECTION_CLIENTS: `gateway:${SECRET},proxy:${'c'.repeat(32)}`,
  GATEWAY_SECRET: 'g'.repeat(32),
};

function issues(env: Record<string, string | undefined>, embedded = false): string[] {
  try {
    loadAuthConfig(env, { embedded });
  } catch (error) {
    if (error instanceof ConfigError) return [...error.issues];
    throw error;
  }
  return [];
}

describe('auth config', () => {
  test('reads every key, with defaults', () => {
    const config = loadAuthConfig(VALID);
    expect(config).toMatchObject({
      port: 8081,
      opsPort: 9091,
      publicUrl: 'https://gateway.example.com',
      cookieKeys: [SECRET, 'b'.repeat(40)],
      tokenHashKey: SECRET,
      tokenTagKeys: ['d'.repeat(32), 'e'.repeat(32)],
      legacyTokensUntil: undefined,
      introspectionClients: [
        { clientId: 'gateway', clientSecret: SECRET },
        { clientId: 'proxy', clientSecret: 'c'.repeat(32) },
      ],
      accessTokenTtlSeconds: 3600,
      refreshTokenTtlSeconds: 30 * 24 * 3600,
      gatewaySecret: 'g'.repeat(32),
    });
    expect(config.keyEncryptionKey).toEqual(Buffer.alloc(32, 1));
  });

  test('lists every weak or missing secret at once', () => {
    const found = issues({
      ...VALID,
      COOKIE_KEYS: `${SECRET},short`,
      KEY_ENCRYPTION_KEY: Buffer.alloc(16).toString('base64'),
      TOKEN_HASH_KEY: 'short',
      TOKEN_TAG_KEYS: `${SECRET},short`,
      INTROSPECTION_CLIENTS: 'gateway:short',
      GATEWAY_SECRET: 'short',
      DATABASE_URL: undefined,
    });
    expect(found.map((issue) => issue.split(':')[0]).sort()).toEqual([
      'COOKIE_KEYS.1',
      'DATABASE_URL',
      'GATEWAY_SECRET',
      'INTROSPECTION_CLIENTS',
      'KEY_ENCRYPTION_KEY',
      'TOKEN_HASH_KEY',
      'TOKEN_TAG_KEYS.1',
    ]);
  });

  test('LEGACY_TOKENS_UNTIL is a date or none', () => {
    expect(
      loadAuthConfig({ ...VALID, LEGACY_TOKENS_UNTIL: '2027-01-31T00:00:00Z' }).legacyTokensUntil,
    ).toEqual(new Date('2027-01-31T00:00:00Z'));
    expect(loadAuthConfig({ ...VALID, LEGACY_TOKENS_UNTIL: 'none' }).legacyTokensUntil).toBeNull();
    expect(issues({ ...VALID, LEGACY_TOKENS_UNTIL: 'soon' })).toEqual([
      expect.stringMatching(/^LEGACY_TOKENS_UNTIL: must be an ISO date/),
    ]);
  });

  test('GATEWAY_SECRET is required, embedded or not: the service answers only what the gateway signed', () => {
    for (const embedded of [false, true])
      expect(issues({ ...VALID, GATEWAY_SECRET: undefined }, embedded)).toEqual([
        expect.stringMatching(/^GATEWAY_SECRET: /),
      ]);
  });

  test('PUBLIC_URL is an origin, required outside embedded mode', () => {
    expect(issues({ ...VALID, PUBLIC_URL: 'https://gateway.example.com/base' })).toEqual([
      expect.stringMatching(/^PUBLIC_URL: must be an origin/),
    ]);
    expect(issues({ ...VALID, PUBLIC_URL: undefined })).toEqual([expect.stringMatching(/^PUBLIC_URL/)]);
    expect(loadAuthConfig({ ...VALID, PUBLIC_URL: undefined }, { embedded: true }).publicUrl).toBeUndefined();
  });
});
