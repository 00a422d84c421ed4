/**
 * Signing out ends every dashboard session of the owner issued until then: a copy of the session
 * cookie taken earlier (another browser, a stolen cookie) stops working at once, and signing in
 * again works.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { Browser, locationOf, signUp } from '@pag/testkit';
import type { TestAuth } from './support/start-test-auth.ts';
import { startTestAuth } from './support/start-test-auth.ts';

const OWNER = { email: 'sessions@example.test', password: 'sessions long password' };

let t: TestAuth;
beforeAll(async () => {
  t = await startTestAuth();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

/** Another browser holding a copy of `from`'s session cookie (and its signature). */
function copySession(from: Browser): Browser {
  const copy = new Browser(t.url);
  for (const name of ['pag_owner', 'pag_owner.sig']) {
    const cookie = from.cookie(name);
    if (cookie === undefined) throw new Error(`no ${name} cookie to copy`);
    copy.setCookie(name, cookie.value);
  }
  return copy;
}

test('signing out ends the copies of the session; signing in again starts a new one', async () => {
  const browser = new Browser(t.url);
  await signUp(browser, OWNER);
  const copy = copySession(browser);
  expect((await copy.get('/dashboard/tokens')).status).toBe(200);

  const dashboard = await browser.open('/dashboard/tokens');
  const out = await browser.submit(dashboard, {}, '/logout');
  expect(out.status).toBe(200);
  expect(out.url.pathname).toBe('/login');

  const refused = await copy.get('/dashboard/tokens');
  expect(refused.status).toBe(303);
  expect(locationOf(refused, t.url)).toBe(`/login?next=${encodeURIComponent('/dashboard/tokens')}`);
  expect(copy.cookie('pag_owner')).toBeUndefined();

  const login = await browser.open('/login');
  const signedIn = await browser.submit(login, { email: OWNER.email, password: OWNER.password });
  expect(signedIn.status).toBe(200);
  expect(signedIn.url.pathname).toBe('/dashboard/tokens');
  expect((await browser.get('/dashboard/tokens')).status).toBe(200);
});
