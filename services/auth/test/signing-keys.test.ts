/**
 * Signing keys: made once on first start (also when replicas start together), encrypted at rest,
 * and rotated without breaking ID tokens already issued: after a rotation and a restart the new
 * key signs, and the old key is still published, so earlier ID tokens still verify.
 */

import type { JsonWebKey } from 'node:crypto';
import { createPublicKey, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { loadSigningKeys, rotateSigningKeys } from '../src/store/signing-keys.ts';
import { createOwner, obtainTokens } from './support/oauth-client.ts';
import type { TestAuth } from './support/start-test-auth.ts';
import { startTestAuth } from './support/start-test-auth.ts';

let t: TestAuth;

beforeAll(async () => {
  t = await startTestAuth();
  await createOwner(t.db);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

async function publishedKeys(): Promise<JsonWebKey[]> {
  const response = await fetch(`${t.url}/oauth/jwks`);
  return ((await response.json()) as { keys: JsonWebKey[] }).keys;
}

/** Checks a compact ES256 JWS against the published key set, as a relying party does. */
async function verifiesWithPublishedKeys(jws: string): Promise<string> {
  const [header = '', payload = '', signature = ''] = jws.split('.');
  const { kid, alg } = JSON.parse(Buffer.from(header, 'base64url').toString()) as {
    kid: string;
    alg: string;
  };
  expect(alg).toBe('ES256');
  const jwk = (await publishedKeys()).find((key) => key.kid === kid);
  if (jwk === undefined) throw new Error(`kid ${kid} is not published`);
  const valid = verify(
    'sha256',
    Buffer.from(`${header}.${payload}`),
    { key: createPublicKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  expect(valid).toBe(true);
  return kid;
}

describe('signing keys', () => {
  test('the first start made one key, stored encrypted; only public keys are published', async () => {
    const rows = await t.db.signingKey.findMany();
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row?.encryptedJwk).toMatch(/^v1\./);
    expect(row?.encryptedJwk).not.toMatch(/"d"/);
    const keys = await publishedKeys();
    expect(keys.map((key) => key.kid)).toEqual([row?.kid]);
    expect(keys[0]).not.toHaveProperty('d');
  });

  test('replicas starting together on an empty table make exactly one key', async () => {
    await t.db.signingKey.deleteMany();
    const options = { prisma: t.db, keyEncryptionKey: t.config.keyEncryptionKey };
    const loaded = await Promise.all([
      loadSigningKeys(options),
      loadSigningKeys(options),
      loadSigningKeys(options),
    ]);
    expect(await t.db.signingKey.count()).toBe(1);
    expect(new Set(loaded.map((set) => set.keys[0]?.kid)).size).toBe(1);
    // Back to the key the running service signs with, for the next test.
    await t.restart();
  });

  test('a key stored under another KEY_ENCRYPTION_KEY stops the start with a clear error', async () => {
    await expect(loadSigningKeys({ prisma: t.db, keyEncryptionKey: Buffer.alloc(32, 7) })).rejects.toThrow(
      /KEY_ENCRYPTION_KEY/,
    );
  });

  test('rotation: the new key signs after a restart, ID tokens of the old key still verify', async () => {
    const before = await obtainTokens(t.url, { scope: 'openid read' });
    expect(before.tokens.id_token).toEqual(expect.any(String));
    const oldKid = await verifiesWithPublishedKeys(before.tokens.id_token as string);

    const rotation = await rotateSigningKeys({ prisma: t.db, keyEncryptionKey: t.config.keyEncryptionKey });
    expect(rotation.retired).toEqual([oldKid]);
    await t.restart();

    expect((await publishedKeys()).map((key) => key.kid)).toEqual([rotation.kid, oldKid]);
    expect(await verifiesWithPublishedKeys(before.tokens.id_token as string)).toBe(oldKid);
    const after = await obtainTokens(t.url, { scope: 'openid read', clientId: before.clientId });
    expect(await verifiesWithPublishedKeys(after.tokens.id_token as string)).toBe(rotation.kid);
    // Opaque access tokens do not depend on keys: the one issued before still works.
    const introspection = await fetch(`${t.url}/oauth/introspect`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${t.config.introspectionClients[0]?.clientId}:${t.config.introspectionClients[0]?.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token: before.tokens.access_token }).toString(),
    });
    expect(await introspection.json()).toMatchObject({ active: true });
  });
});
