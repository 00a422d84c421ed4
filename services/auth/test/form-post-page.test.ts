/**
 * `response_mode=form_post`: oidc-provider's auto-submitting page carries a Content-Security-Policy
 * that lets exactly its own inline script run (by hash) and nothing else, and its form still
 * carries the code to the client's redirect URI. (test/browser-dashboard.test.ts watches a real
 * browser post it.)
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { Browser, parseForms } from '@pag/testkit';
import {
  authorizationUrl,
  createOwner,
  OWNER,
  pkce,
  REDIRECT_URI,
  registerClient,
} from './support/oauth-client.ts';
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

/** The directives of a policy, by name. */
function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name = '', ...values]) => [name, values]),
  );
}

test('the form_post page runs only its own script and posts the code to the client', async () => {
  const clientId = await registerClient(t.url);
  const browser = new Browser(t.url);
  const login = await browser.open(
    authorizationUrl(t.url, {
      response_type: 'code',
      response_mode: 'form_post',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      scope: 'read',
      state: 'form-post-state',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      resource: t.apiResource,
    }),
  );
  const consent = await browser.submit(login, { email: OWNER.email, password: OWNER.password });
  const page = await browser.submit(consent, {}, 'confirm');

  expect(page.status).toBe(200);
  const [form] = parseForms(page);
  expect(form?.method).toBe('post');
  expect(form?.action.href).toBe(REDIRECT_URI);
  expect(form?.fields.get('code')).toEqual(expect.any(String));
  expect(form?.fields.get('state')).toBe('form-post-state');

  const policy = directives(page.headers.get('content-security-policy') ?? '');
  const scripts = [...page.html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1] ?? '');
  expect(scripts).toHaveLength(1);
  const hash = createHash('sha256')
    .update(scripts[0] ?? '')
    .digest('base64');
  expect(policy.get('default-src')).toEqual(["'none'"]);
  expect(policy.get('script-src')).toEqual(["'report-sample'", `'sha256-${hash}'`]);
  expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
});
