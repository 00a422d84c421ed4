/**
 * The forms of the pages refuse what another site could send: a CSRF cookie and token planted
 * from another owner's browser do not act for this owner (the token is bound to the session),
 * and a post a browser marks as coming from another site (Origin, Sec-Fetch-Site) is a 403
 * before anything is done. Requests with neither header (old browsers, curl) still work with the
 * right token.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Browser, csrfOf, signUp } from '@pag/testkit';
import type { TestAuth } from './support/start-test-auth.ts';
import { startTestAuth } from './support/start-test-auth.ts';

const ALICE = { email: 'alice-forms@example.test', password: 'alice forms password' };
const BOB = { email: 'bob-forms@example.test', password: 'bob forms password 12' };

let t: TestAuth;
let alice: Browser;
let bob: Browser;
beforeAll(async () => {
  t = await startTestAuth();
  alice = new Browser(t.url);
  bob = new Browser(t.url);
  await signUp(alice, ALICE);
  await signUp(bob, BOB);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

async function tokenOf(browser: Browser): Promise<string> {
  const page = await browser.get('/dashboard/tokens');
  expect(page.status).toBe(200);
  return csrfOf(await page.text());
}

function post(browser: Browser, path: string, fields: Record<string, string>, headers = {}) {
  return browser.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

const agentsOf = async (email: string) => t.db.agent.count({ where: { account: { email } } });

test("another owner's CSRF cookie and token do not create a token for this owner", async () => {
  const bobsToken = await tokenOf(bob);
  // Alice's browser with Bob's CSRF cookie (signed: copied whole, as a sibling site could plant it).
  for (const name of ['pag_csrf', 'pag_csrf.sig']) {
    const cookie = bob.cookie(name);
    if (cookie === undefined) throw new Error(`no ${name}`);
    alice.setCookie(name, cookie.value);
  }
  const planted = await post(alice, '/dashboard/tokens', {
    _csrf: bobsToken,
    name: 'planted',
    'scope-read': 'on',
  });
  expect(planted.status).toBe(403);
  expect(await planted.text()).toContain('This form has expired or did not come from this site.');
  expect(await agentsOf(ALICE.email)).toBe(0);

  // The same cookie with the token Alice's own page gives her works.
  const created = await post(alice, '/dashboard/tokens', {
    _csrf: await tokenOf(alice),
    name: 'own page',
    'scope-read': 'on',
  });
  expect(created.status).toBe(201);
  expect(await agentsOf(ALICE.email)).toBe(1);
});

describe('posts another site sends', () => {
  test.each([
    ['Origin of another site', { origin: 'https://evil.example' }],
    ['Origin null', { origin: 'null' }],
    ['Sec-Fetch-Site cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site same-site', { 'sec-fetch-site': 'same-site' }],
    ['our Origin but Sec-Fetch-Site cross-site', { origin: 'ORIGIN', 'sec-fetch-site': 'cross-site' }],
  ])('%s: 403 and nothing created', async (_name, given: Record<string, string>) => {
    const headers = Object.fromEntries(
      Object.entries(given).map(([name, value]) => [name, value === 'ORIGIN' ? t.url : value]),
    );
    const before = await agentsOf(BOB.email);
    const refused = await post(
      bob,
      '/dashboard/tokens',
      { _csrf: await tokenOf(bob), name: 'cross-site', 'scope-read': 'on' },
      headers,
    );
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('This form was sent from another site');
    expect(await agentsOf(BOB.email)).toBe(before);
  });

  test('sign-in and sign-out from another site are refused too', async () => {
    const stranger = new Browser(t.url);
    const login = await stranger.get('/login');
    const signIn = await post(
      stranger,
      '/login',
      { _csrf: csrfOf(await login.text()), ...BOB },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(signIn.status).toBe(403);
    const signOut = await post(
      bob,
      '/logout',
      { _csrf: await tokenOf(bob) },
      { origin: 'https://evil.example' },
    );
    expect(signOut.status).toBe(403);
    expect((await bob.get('/dashboard/tokens')).status).toBe(200);
  });

  test.each([
    ['our Origin and Sec-Fetch-Site same-origin', { origin: 'ORIGIN', 'sec-fetch-site': 'same-origin' }],
    [
      'Origin null vouched for by Sec-Fetch-Site same-origin',
      { origin: 'null', 'sec-fetch-site': 'same-origin' },
    ],
    ['neither header (an old browser, curl)', {}],
  ])('%s: the form works', async (_name, given: Record<string, string>) => {
    const headers = Object.fromEntries(
      Object.entries(given).map(([name, value]) => [name, value === 'ORIGIN' ? t.url : value]),
    );
    const created = await post(
      bob,
      '/dashboard/tokens',
      { _csrf: await tokenOf(bob), name: `same-site ${Object.keys(given).length}`, 'scope-read': 'on' },
      headers,
    );
    expect(created.status).toBe(201);
  });
});
