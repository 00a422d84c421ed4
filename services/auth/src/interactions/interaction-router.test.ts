/**
 * The interaction pages driven through HTTP with a real oidc-provider: an authorization with
 * PKCE goes through sign-in and consent to a redirect carrying a code (exchanged for a token),
 * deny returns access_denied, and the pages' headers, CSRF checks and throttling hold.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { describeScope } from '@pag/contracts';
import { Browser, csrfOf, locationOf } from '@pag/testkit';
import { byOperator } from '../events/audit-decisions.ts';
import { AccountStore } from '../store/account-store.ts';
import type { AccountsTestDatabase } from '../store/test-database.ts';
import { startAccountsTestDatabase } from '../store/test-database.ts';
import type { TestAuthApp } from './test-auth-app.ts';
import { CLIENT, startTestAuthApp } from './test-auth-app.ts';

let database: AccountsTestDatabase;
let app: TestAuthApp;
const OWNER = { email: 'owner@example.com', password: 'owner password 123' };
// Its own account for the throttling test, so the lock it provokes never touches the others.
const GUESSED = { email: 'guessed@example.com', password: 'guessed password 1' };
const SCOPE = 'knowledge services:github:read';
const ALL_TICKED = Object.fromEntries(SCOPE.split(' ').map((scope) => [`scope_${scope}`, 'on']));

beforeAll(async () => {
  database = await startAccountsTestDatabase();
  const accounts = new AccountStore(database.db, {
    throttle: { freeFailuresPerEmail: 2, freeFailuresPerAddress: 1000 },
  });
  await accounts.create(OWNER, byOperator());
  await accounts.create(GUESSED, byOperator());
  app = await startTestAuthApp(accounts);
});

afterAll(async () => {
  await app?.close();
  await database?.close();
});

interface Started {
  browser: Browser;
  verifier: string;
  state: string;
  interaction: string;
}

async function startAuthorization(browser = new Browser(app.url)): Promise<Started> {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(8).toString('hex');
  const query = new URLSearchParams({
    client_id: CLIENT.client_id,
    redirect_uri: CLIENT.redirect_uri,
    response_type: 'code',
    scope: SCOPE,
    state,
    resource: app.apiResource,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const response = await browser.get(`/oauth/authorize?${query}`);
  if (response.status !== 303) throw new Error(`authorize: ${response.status} ${await response.text()}`);
  const interaction = locationOf(response, app.url);
  expect(interaction).toMatch(/^\/interaction\/[\w-]+$/);
  return { browser, verifier, state, interaction };
}

async function follow(browser: Browser, response: Response): Promise<Response> {
  expect(response.status).toBe(303);
  return browser.get(locationOf(response, app.url));
}

/** Signs in on the login page; returns the consent page's path. */
async function signIn({ browser, interaction }: Started): Promise<string> {
  const login = await (await browser.get(interaction)).text();
  const afterLogin = await browser.post(`${interaction}/login`, { _csrf: csrfOf(login), ...OWNER });
  const resumed = await follow(browser, afterLogin);
  expect(resumed.status).toBe(303);
  return locationOf(resumed, app.url);
}

const EXPECTED_CSP =
  "default-src 'none'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; form-action 'self' https://agent.example";

describe('interaction pages', () => {
  test('the login page is plain, labelled, escapes the client name and carries the security headers', async () => {
    const { browser, interaction } = await startAuthorization();
    const response = await browser.get(interaction);
    const page = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(EXPECTED_CSP);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(page).toContain('<html lang="en">');
    expect(page).toContain('<h1>Sign in</h1>');
    expect(page).toMatch(/<label for="email">Email<\/label>\s*<input id="email" name="email"/);
    expect(page).toMatch(/<label for="password">Password<\/label>\s*<input id="password" name="password"/);
    expect(page).toContain('Helpful &lt;Agent&gt; &amp; Co');
    expect(page).not.toContain('<Agent>');
    expect(page).not.toContain('<script');
    expect(browser.cookie('pag_csrf')?.attributes).toMatch(/httponly/i);
  });

  test('login, consent and Allow end in a 303 to the client with a code that redeems for a token', async () => {
    const started = await startAuthorization();
    const { browser } = started;
    const consentPath = await signIn(started);
    expect(consentPath).toMatch(/^\/interaction\/[\w-]+$/);

    const consent = await browser.get(consentPath);
    const page = await consent.text();
    expect(consent.headers.get('content-security-policy')).toBe(EXPECTED_CSP);
    expect(page).toContain('Allow Helpful &lt;Agent&gt; &amp; Co to access your gateway?');
    expect(page).toContain('<strong>agent.example</strong>');
    expect(page).toContain('Signed in as owner@example.com');
    for (const scope of SCOPE.split(' ')) {
      expect(page).toContain(describeScope(scope)?.replaceAll("'", '&#39;'));
      expect(page).toContain(`(${scope})`);
    }

    // Every asked scope is a box, ticked by default.
    for (const scope of SCOPE.split(' ')) expect(page).toContain(`name="scope_${scope}" value="on" checked>`);
    const allowed = await browser.post(`${consentPath}/confirm`, { _csrf: csrfOf(page), ...ALL_TICKED });
    const final = await follow(browser, allowed);
    expect(final.status).toBe(303);
    const redirect = new URL(final.headers.get('location') ?? '');
    expect(`${redirect.origin}${redirect.pathname}`).toBe(CLIENT.redirect_uri);
    expect(redirect.searchParams.get('state')).toBe(started.state);
    expect(redirect.searchParams.get('iss')).toBe(app.url);
    const code = redirect.searchParams.get('code');
    expect(code).toBeTruthy();

    const token = await fetch(`${app.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: code ?? '',
        redirect_uri: CLIENT.redirect_uri,
        client_id: CLIENT.client_id,
        code_verifier: started.verifier,
      }),
    });
    expect(token.status).toBe(200);
    const body = (await token.json()) as { access_token?: string; scope?: string; token_type?: string };
    expect(body.token_type).toBe('Bearer');
    expect(body.access_token).toBeTruthy();
    expect(body.scope?.split(' ').sort()).toEqual(SCOPE.split(' ').sort());
  });

  test('Deny ends in a 303 to the client with access_denied', async () => {
    const started = await startAuthorization();
    const consentPath = await signIn(started);
    const page = await (await started.browser.get(consentPath)).text();
    const denied = await started.browser.post(`${consentPath}/abort`, { _csrf: csrfOf(page) });
    const final = await follow(started.browser, denied);
    expect(final.status).toBe(303);
    const redirect = new URL(final.headers.get('location') ?? '');
    expect(`${redirect.origin}${redirect.pathname}`).toBe(CLIENT.redirect_uri);
    expect(redirect.searchParams.get('error')).toBe('access_denied');
    expect(redirect.searchParams.get('error_description')).toBe('The owner denied access.');
    expect(redirect.searchParams.get('state')).toBe(started.state);
    expect(redirect.searchParams.has('code')).toBe(false);
  });

  /** Allows on the consent page with `fields`; the token the code redeems for, or the redirect. */
  async function consentWith(fields: Record<string, string>) {
    const started = await startAuthorization();
    const consentPath = await signIn(started);
    const page = await (await started.browser.get(consentPath)).text();
    const answer = await started.browser.post(`${consentPath}/confirm`, { _csrf: csrfOf(page), ...fields });
    return { started, consentPath, answer };
  }

  async function redeem(started: Started, answer: Response) {
    const redirect = new URL((await follow(started.browser, answer)).headers.get('location') ?? '');
    const token = await fetch(`${app.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: redirect.searchParams.get('code') ?? '',
        redirect_uri: CLIENT.redirect_uri,
        client_id: CLIENT.client_id,
        code_verifier: started.verifier,
      }),
    });
    return (await token.json()) as { scope?: string };
  }

  test('an unticked scope is not granted: not in the token, not in the agent', async () => {
    const before = app.consents.length;
    const { started, answer } = await consentWith({ scope_knowledge: 'on', daily: '40', monthly: '' });
    expect((await redeem(started, answer)).scope).toBe('knowledge');
    expect(app.consents.slice(before)).toEqual([
      expect.objectContaining({ scopes: ['knowledge'], dailyLimit: 40, monthlyLimit: null }),
    ]);
  });

  test('a scope the client did not ask for cannot be ticked in', async () => {
    const { started, answer } = await consentWith({ scope_knowledge: 'on', scope_full: 'on' });
    expect((await redeem(started, answer)).scope).toBe('knowledge');
  });

  test('unticking every scope denies access', async () => {
    const before = app.consents.length;
    const { started, answer } = await consentWith({});
    const redirect = new URL((await follow(started.browser, answer)).headers.get('location') ?? '');
    expect(redirect.searchParams.get('error')).toBe('access_denied');
    expect(redirect.searchParams.has('code')).toBe(false);
    expect(app.consents.length).toBe(before);
  });

  test.each([
    ['0', '', 'The daily limit must be a whole number from 1 to 100000000.'],
    ['ten', '', 'The daily limit must be a whole number from 1 to 100000000.'],
    ['', '-5', 'The monthly limit must be a whole number from 1 to 100000000.'],
  ])(
    'a limit that is not a positive whole number (daily %j, monthly %j) shows the page again, granting nothing',
    async (daily, monthly, message) => {
      const before = app.consents.length;
      const { started, consentPath, answer } = await consentWith({ scope_knowledge: 'on', daily, monthly });
      expect(answer.status).toBe(400);
      const page = await answer.text();
      expect(page).toContain(`role="alert">${message}</p>`);
      // What the owner entered is kept: the box unticked stays unticked.
      expect(page).toContain('name="scope_knowledge" value="on" checked>');
      expect(page).toContain('name="scope_services:github:read" value="on">');
      expect(page).toContain(
        `name="daily" type="number" min="1" step="1" inputmode="numeric" value="${daily}"`,
      );
      expect(app.consents.length).toBe(before);
      // The consent can still be given on the same page.
      const retry = await started.browser.post(`${consentPath}/confirm`, {
        _csrf: csrfOf(page),
        ...ALL_TICKED,
        daily: '7',
      });
      expect((await redeem(started, retry)).scope?.split(' ').sort()).toEqual(SCOPE.split(' ').sort());
    },
  );

  test('a POST without the CSRF token, or with another one, is refused and changes nothing', async () => {
    const started = await startAuthorization();
    const { browser, interaction } = started;
    await browser.get(interaction);
    const missing = await browser.post(`${interaction}/login`, OWNER);
    expect(missing.status).toBe(403);
    expect(await missing.text()).toContain('This form has expired or did not come from this site.');
    const forged = await browser.post(`${interaction}/login`, {
      _csrf: randomBytes(32).toString('base64url'),
      ...OWNER,
    });
    expect(forged.status).toBe(403);
    const denied = await browser.post(`${interaction}/abort`, {});
    expect(denied.status).toBe(403);
    // The interaction is intact: the login page still shows.
    expect((await browser.get(interaction)).status).toBe(200);
  });

  test('a wrong password and an unknown email get the same answer; repeated failures get 429 with Retry-After', async () => {
    const { browser, interaction } = await startAuthorization();
    const csrf = csrfOf(await (await browser.get(interaction)).text());
    const wrong = await browser.post(`${interaction}/login`, {
      _csrf: csrf,
      email: GUESSED.email,
      password: 'not it at all',
    });
    const unknown = await browser.post(`${interaction}/login`, {
      _csrf: csrf,
      email: 'nobody@example.com',
      password: 'not it at all',
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const messageOf = async (response: Response) =>
      (await response.text()).match(/role="alert">([^<]*)</)?.[1];
    expect(await messageOf(wrong)).toBe('The email or password is wrong.');
    expect(await messageOf(unknown)).toBe('The email or password is wrong.');

    await browser.post(`${interaction}/login`, {
      _csrf: csrf,
      email: GUESSED.email,
      password: 'still not it',
    });
    await browser.post(`${interaction}/login`, {
      _csrf: csrf,
      email: GUESSED.email,
      password: 'and not this',
    });
    const throttled = await browser.post(`${interaction}/login`, { _csrf: csrf, ...GUESSED });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await messageOf(throttled)).toMatch(/^Too many attempts\. Try again in \d+ s\.$/);
  });

  test('an unknown or expired interaction shows a plain error page, never a stack trace', async () => {
    const browser = new Browser(app.url);
    const response = await browser.get('/interaction/does-not-exist');
    const page = await response.text();
    expect(response.status).toBe(400);
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page).toContain('This sign-in request has expired');
    expect(page).not.toMatch(/\bat .*\.(js|ts):\d+/);
  });
});
