/**
 * Ed25519 devices against the auth service, with real keys made here: registration over the bus
 * (raw key or JWK, fingerprint, user code and claim URL, 409 for a key seen before, the limit per
 * client address, unclaimed devices purged after 24 hours) and the RFC 7523 JWT bearer grant at
 * /oauth/token: 403 device_pending_approval until approved, then a one-hour token of the device's
 * agent; replayed, forged, misaddressed, stale or malformed assertions refused; denied and revoked
 * devices refused for good.
 */
import type { KeyObject } from 'node:crypto';
import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { DeviceRegistered } from '@pag/contracts';
import { AppError, AuthSubjects, DEVICE_POLL_INTERVAL_SECONDS, MessageHeaders } from '@pag/contracts';
import { byOperator } from '../src/events/audit-decisions.ts';
import type { DeviceStore } from '../src/store/device-store.ts';
import { createOwner, introspect } from './support/oauth-client.ts';
import type { TestAuth } from './support/start-test-auth.ts';
import { RESOURCE_SERVER, startTestAuth } from './support/start-test-auth.ts';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

let t: TestAuth;
let owner: string;
let devices: DeviceStore;
beforeAll(async () => {
  t = await startTestAuth();
  owner = await createOwner(t.db);
  devices = t.auth.core.devices;
}, 60_000);
afterAll(async () => {
  await t?.close();
});

interface DeviceKey {
  privateKey: KeyObject;
  /** The raw public key, base64url. */
  x: string;
}

function newKey(): DeviceKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { privateKey, x: publicKey.export({ format: 'jwk' }).x as string };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A compact JWS signed with the key (EdDSA), from the given claims. */
function jws(key: DeviceKey, claims: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  const input = `${b64({ alg: 'EdDSA', typ: 'JWT', ...header })}.${b64(claims)}`;
  return `${input}.${sign(null, Buffer.from(input), key.privateKey).toString('base64url')}`;
}

/** A fresh, valid assertion of the device, with any claim replaced. */
function assertion(key: DeviceKey, deviceId: string, overrides: Record<string, unknown> = {}): string {
  const now = Math.floor(Date.now() / 1000);
  return jws(key, {
    iss: deviceId,
    sub: deviceId,
    aud: `${t.url}/oauth/token`,
    iat: now,
    exp: now + 120,
    jti: randomUUID(),
    ...overrides,
  });
}

async function tokenRequest(deviceId: string, signed: string) {
  const response = await fetch(`${t.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: signed, client_id: deviceId }).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The token endpoint's Retry-After for this device's next assertion. */
async function retryAfterOf(deviceId: string, signed: string): Promise<string | null> {
  const response = await fetch(`${t.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: signed, client_id: deviceId }).toString(),
  });
  await response.body?.cancel();
  return response.headers.get('retry-after');
}

let addresses = 0;
function register(body: Record<string, unknown>, address = `198.51.100.${++addresses}`) {
  return t.bus.request<DeviceRegistered>(
    AuthSubjects.deviceRegister,
    { params: {}, query: {}, body },
    { timeoutMs: 10_000, headers: { [MessageHeaders.clientAddress]: address } },
  );
}

async function registered(name = 'alice-laptop (MCP)') {
  const key = newKey();
  const reply = await register({ publicKey: key.x, deviceName: name });
  return { key, reply, id: reply.deviceId };
}

async function approved(scopes = ['read']) {
  const device = await registered();
  await devices.claim(owner, device.reply.userCode, byOperator());
  await devices.approve(owner, device.id, { scopes }, byOperator());
  return device;
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('registration', () => {
  test('answers the device id, pending, a user code, the claim URL and the key fingerprint', async () => {
    const key = newKey();
    const reply = await register({ publicKey: key.x, deviceName: 'alice-laptop (MCP)' });
    expect(reply).toEqual({
      deviceId: expect.stringMatching(/^dev_[A-Za-z0-9_-]{22}$/),
      status: 'pending',
      userCode: expect.stringMatching(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/),
      claimUrl: `${t.url}/dashboard/devices/claim?user_code=${reply.userCode}`,
      fingerprint: createHash('sha256').update(Buffer.from(key.x, 'base64url')).digest('base64url'),
    });
    const row = await t.db.device.findUniqueOrThrow({ where: { id: reply.deviceId } });
    expect(row).toMatchObject({ accountId: null, status: 'pending', publicKey: key.x, agentId: null });
    expect(row.clientHash).toMatch(/^[0-9a-f]{64}$/);
    // No OAuth client until the owner approves.
    expect(await t.auth.core.provider.Client.find(reply.deviceId)).toBeUndefined();
  });

  test('takes a public JWK, and the same key in either form is 409', async () => {
    const key = newKey();
    const reply = await register({ publicKey: { kty: 'OKP', crv: 'Ed25519', x: key.x }, deviceName: 'jwk' });
    expect(reply.status).toBe('pending');
    for (const publicKey of [key.x, { kty: 'OKP', crv: 'Ed25519', x: key.x, alg: 'EdDSA' }]) {
      const error = await refusal(register({ publicKey, deviceName: 'again' }));
      expect(error).toMatchObject({ code: 'CONFLICT', status: 409 });
    }
  });

  test.each([
    ['without a key', () => ({ deviceName: 'no key' }), /publicKey/],
    ['with a malformed key', () => ({ publicKey: 'not-a-key', deviceName: 'x' }), /publicKey/],
    ['with an empty name', () => ({ publicKey: newKey().x, deviceName: '' }), /deviceName/],
    ['with an unknown field', () => ({ publicKey: newKey().x, deviceName: 'x', extra: 1 }), /body|extra/],
  ])('refuses a registration %s, naming the field', async (_label, body, field) => {
    const error = await refusal(register(body()));
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
    expect(error.message).toMatch(field);
  });

  test('refuses a private JWK and a blank name', async () => {
    const key = newKey();
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: key.x, d: key.privateKey.export({ format: 'jwk' }).d };
    expect(await refusal(register({ publicKey: jwk, deviceName: 'leaky' }))).toMatchObject({
      code: 'INVALID_REQUEST',
    });
    expect(await refusal(register({ publicKey: key.x, deviceName: '   ' }))).toMatchObject({
      code: 'INVALID_REQUEST',
    });
  });

  test('allows 10 registrations an hour per client address, then 429 with Retry-After', async () => {
    const address = '203.0.113.77';
    for (let i = 0; i < 10; i += 1) await register({ publicKey: newKey().x, deviceName: `d${i}` }, address);
    const error = await refusal(register({ publicKey: newKey().x, deviceName: 'one too many' }, address));
    expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    const retryAfter = Number(error.headers['Retry-After']);
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // Another address is not affected.
    await expect(register({ publicKey: newKey().x, deviceName: 'elsewhere' })).resolves.toMatchObject({
      status: 'pending',
    });
  });

  test('an unclaimed device is purged after 24 hours: its code no longer claims, its key registers again', async () => {
    const { key, reply, id } = await registered();
    await t.db.device.update({
      where: { id },
      data: { createdAt: new Date(Date.now() - 24 * 3600_000 - 1000) },
    });
    expect(await refusal(devices.claim(owner, reply.userCode, byOperator()))).toMatchObject({
      code: 'NOT_FOUND',
    });
    const again = await register({ publicKey: key.x, deviceName: 'back' });
    expect(again.deviceId).not.toBe(id);
    expect(await t.db.device.findUnique({ where: { id } })).toBeNull();
  });
});

describe('the JWT bearer grant', () => {
  test('a device not yet claimed, then claimed but not approved, gets 403 device_pending_approval', async () => {
    const { key, reply, id } = await registered();
    const unclaimed = await tokenRequest(id, assertion(key, id));
    expect(unclaimed).toEqual({
      status: 403,
      body: {
        error: 'device_pending_approval',
        error_description: expect.stringContaining('user code'),
        interval: DEVICE_POLL_INTERVAL_SECONDS,
      },
    });
    await devices.claim(owner, reply.userCode, byOperator());
    const claimed = await tokenRequest(id, assertion(key, id));
    expect(claimed.status).toBe(403);
    expect(claimed.body.error).toBe('device_pending_approval');
    expect(claimed.body.interval).toBe(DEVICE_POLL_INTERVAL_SECONDS);
    expect(await retryAfterOf(id, assertion(key, id))).toBe(String(DEVICE_POLL_INTERVAL_SECONDS));
  });

  test('an approved device gets a one-hour token of its agent, with its scopes, for the API', async () => {
    const { key, id } = await approved(['read', 'chat']);
    const { status, body } = await tokenRequest(id, assertion(key, id));
    expect(status).toBe(200);
    expect(body).toEqual({
      access_token: expect.stringMatching(/^[A-Za-z0-9_-]{40,}$/),
      token_type: 'Bearer',
      expires_in: expect.any(Number),
      scope: 'read chat',
    });
    expect(body.expires_in).toBeGreaterThan(3590);
    expect(body.expires_in).toBeLessThanOrEqual(3600);
    const active = (await (
      await introspect(t.url, body.access_token as string, RESOURCE_SERVER)
    ).json()) as Record<string, unknown>;
    expect(active).toMatchObject({
      active: true,
      client_id: id,
      account_id: owner,
      aud: `${t.url}/api/v1`,
      scope: 'read chat',
      token_kind: 'device',
      agent_name: 'alice-laptop (MCP)',
    });
    expect(body).not.toHaveProperty('refresh_token');
  });

  test('the issuer is accepted as the audience too, in an array', async () => {
    const { key, id } = await approved();
    expect((await tokenRequest(id, assertion(key, id, { aud: [t.url] }))).status).toBe(200);
  });

  test('a replayed assertion (same jti) is refused', async () => {
    const { key, id } = await approved();
    const once = assertion(key, id);
    expect((await tokenRequest(id, once)).status).toBe(200);
    const replay = await tokenRequest(id, once);
    expect(replay).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: expect.stringContaining('already used') },
    });
    const sameJti = assertion(key, id, { jti: 'fixed-jti' });
    expect((await tokenRequest(id, sameJti)).status).toBe(200);
    expect((await tokenRequest(id, assertion(key, id, { jti: 'fixed-jti' }))).status).toBe(400);
  });

  test('a jti PostgreSQL cannot store, from the key holder itself, is a client error, never a 500', async () => {
    const { key, id } = await approved();
    expect(await tokenRequest(id, assertion(key, id, { jti: 'a\u0000b' }))).toEqual({
      status: 400,
      body: {
        error: 'invalid_request',
        error_description: 'A value of the request contains a NUL character (U+0000).',
      },
    });
    expect((await tokenRequest(id, assertion(key, id))).status).toBe(200);
  });

  test('an assertion signed by another key is refused', async () => {
    const { id } = await approved();
    const forged = await tokenRequest(id, assertion(newKey(), id));
    expect(forged.status).toBe(400);
    expect(forged.body.error).toBe('invalid_grant');
    expect(forged.body.error_description).toMatch(/signature/);
  });

  test("one device's assertion does not obtain another device's token", async () => {
    const a = await approved();
    const b = await approved();
    // A's assertion naming B, presented as B: B's key does not verify it.
    expect((await tokenRequest(b.id, assertion(a.key, b.id))).body.error).toBe('invalid_grant');
    // A's own assertion, presented as B: iss and sub are not B.
    expect((await tokenRequest(b.id, assertion(a.key, a.id))).body.error).toBe('invalid_grant');
    // B's assertion presented as A.
    expect((await tokenRequest(a.id, assertion(b.key, b.id))).body.error).toBe('invalid_grant');
  });

  test.each([
    ['expired', { exp: Math.floor(Date.now() / 1000) - 120 }, /exp/],
    ['valid for more than 5 minutes', { exp: Math.floor(Date.now() / 1000) + 900 }, /5|300/],
    ['issued long ago', { iat: Math.floor(Date.now() / 1000) - 900 }, /iat|age/],
    ['for another audience', { aud: 'https://elsewhere.example/oauth/token' }, /aud/],
    ['without jti', { jti: undefined }, /jti/],
    ['with another subject', { sub: 'dev_someoneelse0000000000' }, /sub/],
  ])('an assertion %s is refused', async (_label, overrides, reason) => {
    const { key, id } = await approved();
    const { status, body } = await tokenRequest(id, assertion(key, id, overrides));
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_grant');
    expect(body.error_description).toMatch(reason);
  });

  test('an assertion with another algorithm or none is refused', async () => {
    const { key, id } = await approved();
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: id,
      sub: id,
      aud: `${t.url}/oauth/token`,
      iat: now,
      exp: now + 60,
      jti: randomUUID(),
    };
    const unsigned = `${b64({ alg: 'none' })}.${b64(claims)}.`;
    expect((await tokenRequest(id, unsigned)).body.error).toBe('invalid_grant');
    expect((await tokenRequest(id, jws(key, claims, { alg: 'HS256' }))).body.error).toBe('invalid_grant');
    expect((await tokenRequest(id, 'not a jwt')).body.error).toBe('invalid_grant');
  });

  test('a denied device is refused with invalid_grant, and its key cannot register again', async () => {
    const { key, reply, id } = await registered();
    await devices.claim(owner, reply.userCode, byOperator());
    await devices.deny(owner, id, byOperator());
    const { status, body } = await tokenRequest(id, assertion(key, id));
    expect(status).toBe(400);
    expect(body).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringContaining('denied'),
    });
    expect(await refusal(register({ publicKey: key.x, deviceName: 'again' }))).toMatchObject({
      code: 'CONFLICT',
    });
  });

  test('a revoked device: its token is dead at once, new assertions get 401, for good', async () => {
    const { key, id } = await approved();
    const { body } = await tokenRequest(id, assertion(key, id));
    await devices.revoke(owner, id, byOperator());
    const answer = (await (await introspect(t.url, body.access_token as string, RESOURCE_SERVER)).json()) as {
      active: boolean;
    };
    expect(answer.active).toBe(false);
    for (let i = 0; i < 2; i += 1) {
      const refused = await tokenRequest(id, assertion(key, id));
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({
        error: 'invalid_client',
        error_description: expect.stringContaining('revoked'),
      });
    }
    expect(await refusal(register({ publicKey: key.x, deviceName: 'again' }))).toMatchObject({
      code: 'CONFLICT',
    });
    expect(await refusal(devices.approve(owner, id, { scopes: ['read'] }, byOperator()))).toMatchObject({
      code: 'CONFLICT',
    });
  });

  test('a device agent revoked from the tokens page counts as a revoked device', async () => {
    const { key, id } = await approved();
    const device = await t.db.device.findUniqueOrThrow({ where: { id } });
    await t.auth.core.agents.revoke(owner, device.agentId as string, byOperator());
    expect((await tokenRequest(id, assertion(key, id))).status).toBe(401);
    expect((await devices.get(owner, id)).agent?.status).toBe('revoked');
  });

  test('a device revoked while its client is still known here (another process revoked it) gets 401', async () => {
    const { key, id } = await approved();
    await t.db.device.update({ where: { id }, data: { status: 'revoked' } });
    const refused = await tokenRequest(id, assertion(key, id));
    expect(refused).toEqual({
      status: 401,
      body: { error: 'invalid_client', error_description: expect.stringContaining('revoked') },
    });
  });

  test('an unknown device id keeps oidc-provider invalid_client', async () => {
    const key = newKey();
    const id = 'dev_AAAAAAAAAAAAAAAAAAAAAA';
    expect(await tokenRequest(id, assertion(key, id))).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    });
  });

  test('accepted jti rows are purged once they expired', async () => {
    const { key, id } = await approved();
    await t.db.deviceAssertion.create({
      data: { deviceId: id, jti: 'old', expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await tokenRequest(id, assertion(key, id))).status).toBe(200);
    expect(await t.db.deviceAssertion.findMany({ where: { expiresAt: { lt: new Date() } } })).toEqual([]);
  });
});
