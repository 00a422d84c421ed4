/**
 * The whole device story with a real Ed25519 key made here: the device registers its key → its
 * assertion gets 403 (awaiting approval) → the owner opens the claim link, compares the
 * fingerprint and approves → the assertion buys an access token → the API answers it → the owner
 * revokes the device → the token is refused at once and new assertions get 401, for good.
 */
import type { KeyObject } from 'node:crypto';
import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { beforeAll, describe, expect, test } from '@jest/globals';
import type { DeviceRegistered, TokenCapabilities } from '@pag/contracts';
import { TOKEN_PATTERN } from '@pag/contracts';
import type { Browser } from '@pag/testkit';
import { csrfOf, parseForms } from '@pag/testkit';
import type { StoryTarget } from './target.ts';

const OWNER = { email: 'device-owner@example.test', password: 'correct horse battery staple' };
const OTHER = { email: 'device-other@example.test', password: 'another long password' };
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Signs up through the form without following the redirect (its landing page is another section's). */
async function signUpOnly(browser: Browser, owner: { email: string; password: string }): Promise<void> {
  const csrf = csrfOf(await (await browser.get('/signup')).text());
  const signedUp = await browser.post('/signup', { _csrf: csrf, ...owner, confirm: owner.password });
  expect(signedUp.status).toBe(303);
}

export function deviceStory(target: StoryTarget): void {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const rawKey = publicKey.export({ format: 'jwk' }).x as string;

  /** RFC 7523 assertion: a compact JWS (EdDSA) from the device to the token endpoint. */
  function assertion(deviceId: string, key: KeyObject = privateKey, jti: string = randomUUID()): string {
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: deviceId,
      sub: deviceId,
      aud: `${target.url}/oauth/token`,
      iat: now,
      exp: now + 60,
      jti,
    };
    const input = `${b64({ alg: 'EdDSA', typ: 'JWT' })}.${b64(claims)}`;
    return `${input}.${sign(null, Buffer.from(input), key).toString('base64url')}`;
  }

  async function tokenRequest(deviceId: string, signed: string) {
    const response = await target.fetch(`${target.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: signed, client_id: deviceId }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  }

  const register = (deviceName: string) =>
    target.fetch(`${target.url}/api/v1/agentic/asc/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ publicKey: rawKey, deviceName }),
    });

  const api = (path: string, token: string) =>
    target.fetch(`${target.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

  describe('an Ed25519 device', () => {
    let owner: Browser;
    let device: DeviceRegistered;
    let accessToken: string;
    beforeAll(async () => {
      owner = target.browser();
      await signUpOnly(owner, OWNER);
    });

    test('registers its public key and waits: its assertions get 403 device_pending_approval', async () => {
      const response = await register('story laptop');
      expect(response.status).toBe(201);
      device = (await response.json()) as DeviceRegistered;
      expect(device.status).toBe('pending');
      expect(device.claimUrl).toBe(`${target.url}/dashboard/devices/claim?user_code=${device.userCode}`);

      const waiting = await tokenRequest(device.deviceId, assertion(device.deviceId));
      expect(waiting.status).toBe(403);
      expect(waiting.body.error).toBe('device_pending_approval');
    });

    test('the owner claims it with the link, sees the same fingerprint, and approves it', async () => {
      const claimForm = await owner.open(device.claimUrl);
      const page = await owner.submit(claimForm, {}, '/dashboard/devices/claim');
      expect(page.url.pathname).toBe(`/dashboard/devices/${device.deviceId}`);
      const fingerprint = createHash('sha256').update(Buffer.from(rawKey, 'base64url')).digest('base64url');
      expect(device.fingerprint).toBe(fingerprint);
      expect(page.html).toContain(fingerprint.match(/.{1,4}/g)?.join(' '));
      const approve = parseForms(page).find((form) => form.action.pathname.endsWith('/approve'));
      expect(approve?.fields.get('scope-read')).toBe('on');
      const approved = await owner.submit(page, {}, '/approve');
      expect(approved.html).toMatch(/<dd>approved<\/dd>/);
    });

    test('its assertion buys an access token that the API accepts', async () => {
      const { status, body } = await tokenRequest(device.deviceId, assertion(device.deviceId));
      expect(status).toBe(200);
      expect(body).toMatchObject({ token_type: 'Bearer', scope: 'read' });
      accessToken = body.access_token as string;
      expect(accessToken.startsWith('pag_dv_')).toBe(true);
      expect(accessToken).toMatch(new RegExp(`^${TOKEN_PATTERN}$`));
      const response = await api('/api/v1/tokens/me/capabilities', accessToken);
      expect(response.status).toBe(200);
      const capabilities = (await response.json()) as TokenCapabilities;
      expect(capabilities).toMatchObject({
        clientId: device.deviceId,
        tokenKind: 'device',
        scopes: ['read'],
      });
    });

    test('a replayed or forged assertion buys nothing', async () => {
      const once = assertion(device.deviceId, privateKey, 'story-jti');
      expect((await tokenRequest(device.deviceId, once)).status).toBe(200);
      expect((await tokenRequest(device.deviceId, once)).body.error).toBe('invalid_grant');
      const stranger = generateKeyPairSync('ed25519').privateKey;
      expect((await tokenRequest(device.deviceId, assertion(device.deviceId, stranger))).body.error).toBe(
        'invalid_grant',
      );
    });

    test('another owner can neither claim, see nor revoke it', async () => {
      const other = target.browser();
      await signUpOnly(other, OTHER);
      const claimed = await other.submit(await other.open(device.claimUrl), {}, '/dashboard/devices/claim');
      expect(claimed.status).toBe(404);
      expect((await other.open(`/dashboard/devices/${device.deviceId}`)).status).toBe(404);
      expect((await other.open('/dashboard/devices')).html).not.toContain(device.deviceId);
      const revoke = await other.post(`/dashboard/devices/${device.deviceId}/revoke`, {
        _csrf: csrfOf(claimed.html),
      });
      expect(revoke.status).toBe(404);
      expect((await api('/api/v1/tokens/me/capabilities', accessToken)).status).toBe(200);
    });

    test('the owner revokes it: the token gets 401 at once, and so does every new assertion', async () => {
      const page = await owner.open(`/dashboard/devices/${device.deviceId}`);
      const revoked = await owner.submit(page, {}, '/revoke');
      expect(revoked.html).toMatch(/<dd>revoked<\/dd>/);

      expect((await api('/api/v1/tokens/me/capabilities', accessToken)).status).toBe(401);
      const refused = await tokenRequest(device.deviceId, assertion(device.deviceId));
      expect(refused.status).toBe(401);
      expect(refused.body.error).toBe('invalid_client');

      expect((await register('story laptop, again')).status).toBe(409);
    });
  });
}
