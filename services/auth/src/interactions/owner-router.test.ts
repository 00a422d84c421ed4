/**
 * The owner's sign-up, sign-in and sign-out through HTTP, against a real PostgreSQL:
 * cookies carry the right flags, CSRF is required, a forged session is ignored.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Browser, csrfOf, locationOf } from '@pag/testkit';
import { AccountStore } from '../store/account-store.ts';
import type { AccountsTestDatabase } from '../store/test-database.ts';
import { startAccountsTestDatabase } from '../store/test-database.ts';
import { dashboardPath } from './owner-router.ts';
import type { TestAuthApp } from './test-auth-app.ts';
import { startTestAuthApp } from './test-auth-app.ts';

let database: AccountsTestDatabase;
let app: TestAuthApp;

beforeAll(async () => {
  database = await startAccountsTestDatabase();
  app = await startTestAuthApp(new AccountStore(database.db));
});

afterAll(async () => {
  await app?.close();
  await database?.close();
});

async function formOf(browser: Browser, path: string): Promise<string> {
  const response = await browser.get(path);
  expect(response.status).toBe(200);
  return csrfOf(await response.text());
}

const alertOf = (page: string) => page.match(/role="alert">([^<]*)</)?.[1];

describe('owner pages', () => {
  test('sign-up creates the account, signs in with a signed HttpOnly Lax cookie and lands on the dashboard', async () => {
    const browser = new Browser(app.url);
    const signup = await browser.get('/signup');
    expect(signup.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; form-action 'self'",
    );
    expect(signup.headers.get('x-frame-options')).toBe('DENY');
    const page = await signup.text();
    expect(page).toMatch(/<label for="confirm">/);
    const created = await browser.post('/signup', {
      _csrf: csrfOf(page),
      email: 'New.Owner@Example.com',
      password: 'a fine long password',
      confirm: 'a fine long password',
    });
    expect(created.status).toBe(303);
    expect(locationOf(created, app.url)).toBe('/dashboard/tokens');
    const session = browser.cookie('pag_owner');
    expect(session?.attributes).toMatch(/httponly/i);
    expect(session?.attributes).toMatch(/samesite=lax/i);
    expect(session?.attributes).not.toMatch(/secure/i);
    expect(browser.cookie('pag_owner.sig')).toBeDefined();

    // Signed in: /login goes on to the dashboard (src/dashboard, tested with the service).
    expect(locationOf(await browser.get('/login'), app.url)).toBe('/dashboard/tokens');
  });

  test('sign-up refuses differing passwords, short ones and a taken email, keeping the email typed', async () => {
    const browser = new Browser(app.url);
    const csrf = await formOf(browser, '/signup');
    const differ = await browser.post('/signup', {
      _csrf: csrf,
      email: 'x@example.com',
      password: 'a'.repeat(12),
      confirm: 'b'.repeat(12),
    });
    expect(differ.status).toBe(400);
    const differPage = await differ.text();
    expect(alertOf(differPage)).toBe('The two passwords differ.');
    expect(differPage).toContain('value="x@example.com"');
    const short = await browser.post('/signup', {
      _csrf: csrf,
      email: 'x@example.com',
      password: 'short',
      confirm: 'short',
    });
    expect(short.status).toBe(400);
    expect(alertOf(await short.text())).toBe('The password needs at least 12 characters.');

    const password = 'taken account password';
    await browser.post('/signup', { _csrf: csrf, email: 'taken@example.com', password, confirm: password });
    const again = new Browser(app.url);
    const taken = await again.post('/signup', {
      _csrf: await formOf(again, '/signup'),
      email: 'TAKEN@example.com',
      password,
      confirm: password,
    });
    expect(taken.status).toBe(409);
    expect(alertOf(await taken.text())).toBe('An account with this email already exists. Sign in instead.');
    expect(again.cookie('pag_owner')).toBeUndefined();
  });

  test('sign-in, sign-out; afterwards /login shows the form again', async () => {
    const setup = new Browser(app.url);
    const password = 'login flow password';
    await setup.post('/signup', {
      _csrf: await formOf(setup, '/signup'),
      email: 'flow@example.com',
      password,
      confirm: password,
    });

    const browser = new Browser(app.url);
    const csrf = await formOf(browser, '/login');
    const wrong = await browser.post('/login', {
      _csrf: csrf,
      email: 'flow@example.com',
      password: 'wrong password!',
    });
    expect(wrong.status).toBe(401);
    expect(alertOf(await wrong.text())).toBe('The email or password is wrong.');
    const signedIn = await browser.post('/login', { _csrf: csrf, email: 'flow@example.com', password });
    expect(signedIn.status).toBe(303);
    expect(locationOf(signedIn, app.url)).toBe('/dashboard/tokens');
    // Signed in already: /login goes on to the dashboard.
    expect(locationOf(await browser.get('/login'), app.url)).toBe('/dashboard/tokens');

    // The token of a form rendered before signing in no longer works: it was bound to no session.
    const stale = await browser.post('/logout', { _csrf: csrf });
    expect(stale.status).toBe(403);
    const dashboardToken = csrfOf(await (await browser.get('/signup')).text());
    const out = await browser.post('/logout', { _csrf: dashboardToken });
    expect(out.status).toBe(303);
    expect(locationOf(out, app.url)).toBe('/login');
    expect(browser.cookie('pag_owner')).toBeUndefined();
    expect((await browser.get('/login')).status).toBe(200);
  });

  test('POSTs without the CSRF token are refused; sign-out without it keeps the session', async () => {
    const browser = new Browser(app.url);
    const password = 'csrf check password';
    const created = await browser.post('/signup', { email: 'csrf@example.com', password, confirm: password });
    expect(created.status).toBe(403);
    const csrf = await formOf(browser, '/signup');
    await browser.post('/signup', { _csrf: csrf, email: 'csrf@example.com', password, confirm: password });
    expect((await browser.post('/logout', {})).status).toBe(403);
    // Still signed in: /login goes on to the dashboard.
    expect((await browser.get('/login')).status).toBe(303);
  });

  test('a form over 16 KB is refused with 413 before anything is checked', async () => {
    const browser = new Browser(app.url);
    const csrf = await formOf(browser, '/login');
    const response = await browser.post('/login', {
      _csrf: csrf,
      email: 'big@example.com',
      password: 'x'.repeat(20_000),
    });
    expect(response.status).toBe(413);
    expect(await response.text()).toContain('The form is larger than 16 KB.');
  });

  test('a session cookie edited by hand, or without its signature, is ignored', async () => {
    const browser = new Browser(app.url);
    const password = 'forged session password';
    await browser.post('/signup', {
      _csrf: await formOf(browser, '/signup'),
      email: 'forge@example.com',
      password,
      confirm: password,
    });
    const value = browser.cookie('pag_owner')?.value ?? '';
    const [accountId = ''] = value.split('.');
    const forged = new Browser(app.url);
    forged.setCookie('pag_owner', `${accountId}.99999999999`);
    // Not signed in: /login shows its form rather than going on to the dashboard.
    expect((await forged.get('/login')).status).toBe(200);
    forged.setCookie('pag_owner.sig', browser.cookie('pag_owner.sig')?.value ?? '');
    expect((await forged.get('/login')).status).toBe(200);
  });

  test('behind an https PUBLIC_URL proxy the cookies are Secure', async () => {
    const secureApp = await startTestAuthApp(new AccountStore(database.db), {
      publicUrl: 'https://gateway.example',
    });
    try {
      const browser = new Browser(secureApp.url, { 'x-forwarded-proto': 'https' });
      const page = await browser.get('/signup');
      expect(page.status).toBe(200);
      expect(browser.cookie('pag_csrf')?.attributes).toMatch(/secure/i);
      const password = 'secure cookie password';
      const created = await browser.post('/signup', {
        _csrf: csrfOf(await page.text()),
        email: 'secure@example.com',
        password,
        confirm: password,
      });
      expect(created.status).toBe(303);
      expect(browser.cookie('pag_owner')?.attributes).toMatch(/secure/i);
    } finally {
      await secureApp.close();
    }
  });
});

describe('dashboardPath (where /login goes on to)', () => {
  test('signing in from a claim link goes back to it', async () => {
    const setup = new Browser(app.url);
    const password = 'next page password';
    await setup.post('/signup', {
      _csrf: await formOf(setup, '/signup'),
      email: 'next@example.com',
      password,
      confirm: password,
    });
    const browser = new Browser(app.url);
    const next = '/dashboard/devices/claim?user_code=ABCD-EFGH';
    const form = await (await browser.get(`/login?next=${encodeURIComponent(next)}`)).text();
    expect(form).toContain(`name="next" value="${next}"`);
    const signedIn = await browser.post('/login', {
      _csrf: csrfOf(form),
      email: 'next@example.com',
      password,
      next,
    });
    expect(locationOf(signedIn, app.url)).toBe(next);
    // Signed in now: the sign-in form's token is bound to no session; a fresh form's works.
    const offsite = await browser.post('/login', {
      _csrf: await formOf(browser, '/signup'),
      email: 'next@example.com',
      password,
      next: '//evil.example/',
    });
    expect(locationOf(offsite, app.url)).toBe('/dashboard/tokens');
  });

  test.each([
    ['/dashboard/devices/claim?user_code=ABCD-EFGH', '/dashboard/devices/claim?user_code=ABCD-EFGH'],
    ['/dashboard', '/dashboard'],
    ['//evil.example/dashboard', undefined],
    ['/dashboard@evil.example', undefined],
    ['https://evil.example/dashboard/tokens', undefined],
    ['/dashboards', undefined],
    ['/login', undefined],
    [['/dashboard/tokens'], undefined],
  ])('%j → %j', (value, expected) => {
    expect(dashboardPath(value)).toBe(expected);
  });
});
