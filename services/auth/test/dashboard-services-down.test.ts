/**
 * /dashboard/services while no proxy answers (the auth service alone on its bus): the page and
 * every form say plainly that the services are unavailable (503), nothing is half-done, and a
 * forged post is refused before the proxy would be asked. (With a proxy and a stand-in provider:
 * test/connect-dashboard.test.ts.)
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { Browser, csrfOf, signUp } from '@pag/testkit';
import type { TestAuth } from './support/start-test-auth.ts';
import { startTestAuth } from './support/start-test-auth.ts';

const OWNER = { email: 'unplugged@example.test', password: 'correct horse battery staple' };
const UNAVAILABLE = 'Your services are unavailable right now: the proxy service did not answer.';

let t: TestAuth;
let browser: Browser;
let csrf: string;

beforeAll(async () => {
  t = await startTestAuth();
  browser = new Browser(t.url);
  csrf = csrfOf((await signUp(browser, OWNER)).html);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const alertOf = (html: string) => /role="alert">([^<]*)</.exec(html)?.[1] ?? '';

test('the page is a 503 that says so, with the navigation', async () => {
  const page = await browser.open('/dashboard/services');
  expect(page.status).toBe(503);
  expect(alertOf(page.html)).toContain(UNAVAILABLE);
  expect(page.html).toContain('<a href="/dashboard/services" aria-current="page">Services</a>');
});

test.each([
  ['/dashboard/services/connect', { service: 'github' }],
  ['/dashboard/services/api-key', { service: 'stripe', key: 'rk_test_123' }],
  ['/dashboard/services/disconnect', { service: 'github' }],
])('%s is a 503, no redirect', async (path, fields) => {
  const response = await browser.post(path, { _csrf: csrf, ...fields });
  expect(response.status).toBe(503);
  expect(response.headers.get('location')).toBeNull();
  expect(alertOf(await response.text())).toContain(UNAVAILABLE);
});

test('the callback without a proxy is a 503 too; a post without the CSRF token is a 403', async () => {
  const callback = await browser.open('/dashboard/services/callback?state=abc&code=xyz');
  expect(callback.status).toBe(503);
  const forged = await browser.post('/dashboard/services/connect', { service: 'github' });
  expect(forged.status).toBe(403);
});
