/**
 * Signing out of the dashboard also ends oidc-provider's sessions of the owner: after a consent,
 * a new authorization for the same client issues a code at once; after the owner signs out (in
 * any browser) it asks for the sign-in again, in this browser and in one holding a copy of its
 * OAuth session cookie, and a consent page left open gives no code. Another owner's OAuth session
 * is left alone.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { Browser } from '@pag/testkit';
import { authorizationUrl, createOwner, pkce, REDIRECT_URI, registerClient } from './support/oauth-client.ts';
import type { TestAuth } from './support/start-test-auth.ts';
import { startTestAuth } from './support/start-test-auth.ts';

const OWNER = { email: 'signout@example.test', password: 'sign-out long password' };
const OTHER = { email: 'other-owner@example.test', password: 'other owner long password' };

let t: TestAuth;
let clientId: string;
beforeAll(async () => {
  t = await startTestAuth();
  await createOwner(t.db, OWNER);
  await createOwner(t.db, OTHER);
  clientId = await registerClient(t.url);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

/** Opens a fresh authorization for the client; the page it stops on (or the client's callback). */
function authorize(browser: Browser) {
  return browser.open(
    authorizationUrl(t.url, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      scope: 'read',
      state: 'state-1',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      resource: t.apiResource,
    }),
  );
}

/** Signs in on the OAuth login page and allows the client: the browser then holds an OAuth session. */
async function consentOnce(browser: Browser, owner: typeof OWNER): Promise<void> {
  const login = await authorize(browser);
  expect(login.html).toMatch(/name="password"/);
  const consent = await browser.submit(login, { email: owner.email, password: owner.password });
  const callback = await browser.submit(consent, {}, 'confirm');
  expect(callback.url.searchParams.get('code')).toEqual(expect.any(String));
}

/** Another browser holding copies of `from`'s cookies (oidc-provider's session among them). */
function copyCookies(from: Browser, names: string[]): Browser {
  const copy = new Browser(t.url);
  for (const name of names) {
    const cookie = from.cookie(name);
    if (cookie === undefined) throw new Error(`no ${name} cookie to copy`);
    copy.setCookie(name, cookie.value, cookie.path);
  }
  return copy;
}

test('after the dashboard sign-out, /oauth/authorize asks for the sign-in again, in every browser', async () => {
  const browser = new Browser(t.url);
  await consentOnce(browser, OWNER);
  const other = new Browser(t.url);
  await consentOnce(other, OTHER);

  // Consented before and still signed in with oidc-provider: a code at once, no page.
  const again = await authorize(browser);
  expect(again.url.origin).toBe(new URL(REDIRECT_URI).origin);
  expect(again.url.searchParams.get('code')).toEqual(expect.any(String));
  const copy = copyCookies(browser, ['_session', '_session.sig']);

  const login = await browser.open('/login');
  const dashboard = await browser.submit(login, { email: OWNER.email, password: OWNER.password });
  expect(dashboard.url.pathname).toBe('/dashboard/tokens');
  const out = await browser.submit(dashboard, {}, '/logout');
  expect(out.url.pathname).toBe('/login');

  for (const each of [browser, copy]) {
    const page = await authorize(each);
    expect(page.url.pathname).toMatch(/^\/interaction\//);
    expect(page.html).toMatch(/name="password"/);
  }
  // The other owner's OAuth session is not touched.
  const untouched = await authorize(other);
  expect(untouched.url.searchParams.get('code')).toEqual(expect.any(String));
});

test('a consent page opened before the sign-out no longer gives the client a code', async () => {
  const browser = new Browser(t.url);
  const login = await authorize(browser);
  const consent = await browser.submit(login, { email: OTHER.email, password: OTHER.password });
  expect(consent.html).toContain('/confirm');

  // Signed out elsewhere (another browser), while this consent page is open.
  const elsewhere = new Browser(t.url);
  const dashboard = await elsewhere.submit(await elsewhere.open('/login'), {
    email: OTHER.email,
    password: OTHER.password,
  });
  await elsewhere.submit(dashboard, {}, '/logout');

  const after = await browser.submit(consent, {}, 'confirm');
  expect(after.url.searchParams.get('code')).toBeNull();
});
