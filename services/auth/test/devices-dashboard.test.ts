/**
 * /dashboard/devices as an owner uses it, through HTTP with a cookie jar: the claim link fills the
 * user code, claiming shows the device's name and key fingerprint, approval offers the scope model
 * with meanings (read checked) and optional limits, mistakes are named on the page, deny and
 * revoke take effect at once (approval and revocation announced on the bus), and an owner never
 * sees, claims, approves, denies or revokes another owner's device.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { DeviceEvent, DeviceRegistered } from '@pag/contracts';
import { AuthSubjects, describeScope, EventSubjects, MessageHeaders } from '@pag/contracts';
import type { Page } from '@pag/testkit';
import { Browser, csrfOf, parseForms, signUp as signUpOwner } from '@pag/testkit';
import type { TestAuth } from './support/start-test-auth.ts';
import { startTestAuth } from './support/start-test-auth.ts';

let t: TestAuth;
let alice: Browser;
let bob: Browser;
const events: { subject: string; event: DeviceEvent }[] = [];

/** A new owner's browser, signed up through the form. */
async function signUp(email: string): Promise<Browser> {
  const browser = new Browser(t.url);
  await signUpOwner(browser, { email, password: 'correct horse battery staple' });
  return browser;
}

let registrations = 0;
async function registerDevice(name = 'kitchen tablet'): Promise<DeviceRegistered & { x: string }> {
  registrations += 1;
  const x = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x as string;
  const reply = await t.bus.request<DeviceRegistered>(
    AuthSubjects.deviceRegister,
    { params: {}, query: {}, body: { publicKey: x, deviceName: name } },
    { timeoutMs: 10_000, headers: { [MessageHeaders.clientAddress]: `192.0.2.${registrations}` } },
  );
  return { ...reply, x };
}

const grouped = (fingerprint: string) => fingerprint.match(/.{1,4}/g)?.join(' ') ?? '';

/** Opens the claim link as the owner and submits the pre-filled form. */
async function claim(browser: Browser, device: DeviceRegistered): Promise<Page> {
  const form = await browser.open(device.claimUrl);
  return browser.submit(form, {}, '/dashboard/devices/claim');
}

/** Posts one of the device page's forms (approve, deny, revoke) with these fields. */
async function decide(browser: Browser, deviceId: string, verb: string, fields: Record<string, string> = {}) {
  const page = await browser.open(`/dashboard/devices/${deviceId}`);
  const form = parseForms(page).find((f) => f.action.pathname.endsWith(`/${verb}`));
  const csrf = form?.fields.get('_csrf') ?? csrfOf(page.html);
  return browser.request(`/dashboard/devices/${deviceId}/${verb}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      ...Object.fromEntries(form?.fields ?? []),
      _csrf: csrf,
      ...fields,
    }).toString(),
  });
}

beforeAll(async () => {
  t = await startTestAuth();
  await t.bus.subscribe('events.auth.device.>', (message) => {
    events.push({ subject: message.subject, event: message.data as DeviceEvent });
  });
  alice = await signUp('alice@example.test');
  bob = await signUp('bob@example.test');
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('claiming', () => {
  test('the claim link fills the user code; claiming shows the name and the key fingerprint', async () => {
    const device = await registerDevice('Alice <laptop> & co');
    const form = await alice.open(device.claimUrl);
    expect(form.status).toBe(200);
    expect(form.headers.get('cache-control')).toBe('no-store');
    expect(form.html).toMatch(
      new RegExp(
        `<label for="user_code">[^<]+</label>\\s*<input id="user_code" name="user_code" value="${device.userCode}"`,
      ),
    );
    const page = await alice.submit(form, {}, '/dashboard/devices/claim');
    expect(page.url.pathname).toBe(`/dashboard/devices/${device.deviceId}`);
    expect(page.html).toContain('Alice &lt;laptop&gt; &amp; co');
    const fingerprint = createHash('sha256').update(Buffer.from(device.x, 'base64url')).digest('base64url');
    expect(device.fingerprint).toBe(fingerprint);
    expect(page.html).toContain(grouped(fingerprint));
    expect(page.html).toContain('pending');
    const list = await alice.open('/dashboard/devices');
    expect(list.html).toContain(grouped(fingerprint));
  });

  test('a code typed in lower case, without the dash, claims too; the same owner may claim twice', async () => {
    const device = await registerDevice();
    const form = await alice.open('/dashboard/devices/claim');
    const typed = device.userCode.toLowerCase().replace('-', ' ');
    expect((await alice.submit(form, { user_code: typed }, '/dashboard/devices/claim')).url.pathname).toBe(
      `/dashboard/devices/${device.deviceId}`,
    );
    expect((await claim(alice, device)).url.pathname).toBe(`/dashboard/devices/${device.deviceId}`);
  });

  test("another owner's claimed code fails exactly like an unknown one", async () => {
    const device = await registerDevice();
    await claim(alice, device);
    const stolen = await claim(bob, device);
    const unknown = await bob.submit(
      await bob.open('/dashboard/devices/claim'),
      { user_code: 'BBBB-BBBB' },
      '/dashboard/devices/claim',
    );
    expect(stolen.status).toBe(404);
    expect(unknown.status).toBe(404);
    const message = (html: string) => /<p class="error" role="alert">([^<]*)<\/p>/.exec(html)?.[1];
    expect(message(stolen.html)).toBe(message(unknown.html));
    expect(message(stolen.html)).toBeDefined();
  });

  test('without a session the claim page sends the browser to sign in', async () => {
    const device = await registerDevice();
    const claimPath = new URL(device.claimUrl).pathname + new URL(device.claimUrl).search;
    const response = await new Browser(t.url).get(claimPath);
    expect(response.status).toBe(303);
    // …and brought back to the claim link once signed in.
    expect(response.headers.get('location')).toBe(`/login?next=${encodeURIComponent(claimPath)}`);
  });
});

describe('deciding', () => {
  test('approval offers every scope with its meaning, read checked; it grants the chosen scopes and limits', async () => {
    const device = await registerDevice();
    const page = await claim(alice, device);
    const approve = parseForms(page).find((form) => form.action.pathname.endsWith('/approve'));
    expect(approve?.fields.get('scope-read')).toBe('on');
    expect(approve?.fields.has('scope-full')).toBe(false);
    expect(page.html).toContain((describeScope('availability') ?? 'missing').replaceAll("'", '&#39;'));
    expect(page.html).toMatch(/<label for="daily">/);
    const response = await decide(alice, device.deviceId, 'approve', {
      'scope-availability': 'on',
      extra: 'services:github:read',
      daily: '100',
      monthly: '',
    });
    expect(response.status).toBe(303);
    const shown = await alice.open(response.headers.get('location') ?? '');
    expect(shown.html).toMatch(/<dd>approved<\/dd>/);
    const agent = await t.db.agent.findFirstOrThrow({ where: { clientId: device.deviceId } });
    expect(agent).toMatchObject({
      kind: 'device',
      scopes: ['read', 'availability', 'services:github:read'],
      dailyLimit: 100,
      monthlyLimit: null,
    });
    expect(events).toContainEqual({
      subject: EventSubjects.deviceApproved,
      event: expect.objectContaining({ deviceId: device.deviceId, clientId: device.deviceId }),
    });
  });

  test('a mistake is named on the page, with what was typed kept, and nothing is approved', async () => {
    const device = await registerDevice();
    await claim(alice, device);
    const response = await decide(alice, device.deviceId, 'approve', {
      extra: 'services:GitHub',
      daily: '100',
    });
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain('is not a scope');
    expect(html).toContain('value="services:GitHub"');
    expect((await t.db.device.findUniqueOrThrow({ where: { id: device.deviceId } })).status).toBe('pending');
  });

  test('deny, then revoke of an approved one; both final', async () => {
    const denied = await registerDevice();
    await claim(alice, denied);
    expect((await decide(alice, denied.deviceId, 'deny')).status).toBe(303);
    expect((await alice.open(`/dashboard/devices/${denied.deviceId}`)).html).toMatch(/<dd>denied<\/dd>/);
    expect((await decide(alice, denied.deviceId, 'approve', { 'scope-read': 'on' })).status).toBe(409);

    const revoked = await registerDevice();
    await claim(alice, revoked);
    await decide(alice, revoked.deviceId, 'approve');
    expect((await decide(alice, revoked.deviceId, 'revoke')).status).toBe(303);
    const list = await alice.open('/dashboard/devices');
    const section = (title: string) => list.html.split(`<h2>${title}</h2>`)[1]?.split('<h2>')[0] ?? '';
    expect(section('Denied')).toContain(`/dashboard/devices/${denied.deviceId}"`);
    expect(section('Revoked')).toContain(`/dashboard/devices/${revoked.deviceId}"`);
    expect(section('Approved')).not.toContain(revoked.deviceId);
    const agent = await t.db.agent.findFirstOrThrow({ where: { clientId: revoked.deviceId } });
    expect(agent.status).toBe('revoked');
    expect(events).toContainEqual({
      subject: EventSubjects.deviceRevoked,
      event: expect.objectContaining({ deviceId: revoked.deviceId }),
    });
  });

  test('a form without its CSRF token is refused', async () => {
    const device = await registerDevice();
    await claim(alice, device);
    const response = await alice.post(`/dashboard/devices/${device.deviceId}/approve`, {
      'scope-read': 'on',
    });
    expect(response.status).toBe(403);
    expect((await t.db.device.findUniqueOrThrow({ where: { id: device.deviceId } })).status).toBe('pending');
  });
});

describe('tenancy', () => {
  test("an owner neither sees, approves, denies nor revokes another owner's device", async () => {
    const pending = await registerDevice('alice pending');
    await claim(alice, pending);
    const approved = await registerDevice('alice approved');
    await claim(alice, approved);
    await decide(alice, approved.deviceId, 'approve');

    const bobsList = await bob.open('/dashboard/devices');
    expect(bobsList.html).not.toContain(pending.deviceId);
    expect(bobsList.html).not.toContain('alice');
    for (const device of [pending, approved]) {
      expect((await bob.open(`/dashboard/devices/${device.deviceId}`)).status).toBe(404);
    }
    const csrf = csrfOf((await bob.open('/dashboard/devices')).html);
    const post = (id: string, verb: string) =>
      bob.post(`/dashboard/devices/${id}/${verb}`, { _csrf: csrf, 'scope-full': 'on' });
    expect((await post(pending.deviceId, 'approve')).status).toBe(404);
    expect((await post(pending.deviceId, 'deny')).status).toBe(404);
    expect((await post(approved.deviceId, 'revoke')).status).toBe(404);

    const rows = await t.db.device.findMany({ where: { id: { in: [pending.deviceId, approved.deviceId] } } });
    expect(Object.fromEntries(rows.map((row) => [row.id, row.status]))).toEqual({
      [pending.deviceId]: 'pending',
      [approved.deviceId]: 'approved',
    });
  });

  test('an unclaimed device is on nobody’s list', async () => {
    const device = await registerDevice('nobody yet');
    for (const browser of [alice, bob]) {
      expect((await browser.open('/dashboard/devices')).html).not.toContain(device.deviceId);
      expect((await browser.open(`/dashboard/devices/${device.deviceId}`)).status).toBe(404);
    }
  });
});
