/**
 * The owner's own OAuth client and own generic OAuth 2.0 connector on /dashboard/services
 * (docs/adr/0068), against the stack as a user starts it and the stand-in provider on loopback
 * (CONNECTOR_ALLOW_LOOPBACK for the test). The browser is testkit's cookie-keeping client: the
 * forms need no script. Secrets are write-only; the forms are CSRF-protected; a refused form comes
 * back as typed, naming the field; another owner neither sees nor calls the connector.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Connector } from '@pag/contracts';
import type { StackProcess } from '@pag/testkit';
import { Browser, csrfOf, signUp, startStackProcess } from '@pag/testkit';
import { STAND_IN_CLIENT, StandInProvider } from '../services/proxy/test/support/stand-in-provider.ts';

const ALICE = { email: 'alice@own-connector.test', password: 'correct horse battery staple' };
const MALLORY = { email: 'mallory@own-connector.test', password: 'another horse battery staple' };
const GITHUB_SECRET = 'github-client-secret-of-alice-0123456789';

let provider: StandInProvider;
let stack: StackProcess;
let alice: Browser;
let csrf: string;

beforeAll(async () => {
  provider = await StandInProvider.start();
  stack = await startStackProcess({ env: { CONNECTOR_ALLOW_LOOPBACK: 'true' } });
  provider.withRedirectUri(`${stack.url}/dashboard/services/callback`);
  alice = new Browser(stack.url);
  csrf = csrfOf((await signUp(alice, ALICE)).html);
}, 90_000);
afterAll(async () => {
  await stack?.stop();
  await provider?.[Symbol.asyncDispose]();
});

function ownConnector(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    _csrf: csrf,
    name: 'my-api',
    displayName: 'My API',
    authorizationUrl: `${provider.url}/auth`,
    tokenUrl: `${provider.url}/token`,
    revocationUrl: `${provider.url}/token/revocation`,
    apiBaseUrl: `${provider.url}/api`,
    scopes: 'openid',
    clientAuth: 'client_secret_basic',
    pkce: 'on',
    clientId: STAND_IN_CLIENT.clientId,
    clientSecret: STAND_IN_CLIENT.clientSecret,
    ...overrides,
  };
}

async function agentToken(browser: Browser, token: string): Promise<string> {
  const created = await browser.post('/dashboard/tokens', {
    _csrf: token,
    name: 'reader',
    'scope-read': 'on',
  });
  expect(created.status).toBe(201);
  return /<code id="new-token">([^<]+)<\/code>/.exec(await created.text())?.[1] ?? '';
}

const api = (token: string, path: string) =>
  fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

test('an own client: the form shows the redirect URI, needs CSRF, never shows the secret back', async () => {
  const page = await alice.open('/dashboard/services');
  expect(page.status).toBe(200);
  expect(page.html).toContain(`${stack.url}/dashboard/services/callback`);
  expect(page.html).toMatch(/<details data-client="github" open>/);

  const forged = await alice.post('/dashboard/services/client', {
    service: 'github',
    clientId: 'gh-id',
    clientSecret: GITHUB_SECRET,
  });
  expect(forged.status).toBe(403);

  const saved = await alice.post('/dashboard/services/client', {
    _csrf: csrf,
    service: 'github',
    clientId: 'gh-id',
    clientSecret: GITHUB_SECRET,
  });
  expect(saved.status).toBe(303);
  const after = await alice.open(saved.headers.get('location') ?? '');
  expect(after.html).toContain('Your client for GitHub is saved.');
  expect(after.html).toContain('Your own client: <code>gh-id</code>, secret set');
  expect(after.html).not.toContain(GITHUB_SECRET);
  expect(after.html).toMatch(/<button type="submit">Connect GitHub<\/button>/);

  const removed = await alice.post('/dashboard/services/client/remove', { _csrf: csrf, service: 'github' });
  expect(removed.status).toBe(303);
  expect((await alice.open('/dashboard/services')).html).not.toContain('Connect GitHub</button>');
}, 60_000);

test('an own connector: a bad URL names the field and keeps what was typed; then defined, connected, called', async () => {
  const refused = await alice.post(
    '/dashboard/services/custom',
    ownConnector({ tokenUrl: 'ftp://files.example/token', displayName: 'My typed name' }),
  );
  expect(refused.status).toBe(400);
  const text = await refused.text();
  expect(text).toContain('tokenUrl:');
  expect(text).toContain('value="My typed name"');
  expect(text).toContain('value="ftp://files.example/token"');
  expect(text).not.toContain(STAND_IN_CLIENT.clientSecret);

  const forged = await alice.post('/dashboard/services/custom', { ...ownConnector(), _csrf: '' });
  expect(forged.status).toBe(403);

  const saved = await alice.post('/dashboard/services/custom', ownConnector());
  expect(saved.status).toBe(303);
  const page = await alice.open(saved.headers.get('location') ?? '');
  expect(page.html).toContain('My API is saved.');
  expect(page.html).toContain('<code>my-api</code>');
  expect(page.html).not.toContain(STAND_IN_CLIENT.clientSecret);

  const started = await alice.post('/dashboard/services/connect', { _csrf: csrf, service: 'my-api' });
  expect(started.status).toBe(303);
  const authorization = new URL(started.headers.get('location') ?? '');
  expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
  const back = await provider.authorize(authorization.href, `${stack.url}/dashboard/services/callback`);
  const connected = await alice.open(back);
  expect(connected.html).toContain('My API is connected.');

  const token = await agentToken(alice, csrf);
  const call = await api(token, '/api/v1/services/my-api/items');
  expect(call.status).toBe(200);
  expect(await call.json()).toEqual({ items: ['one', 'two'] });

  // Mallory neither sees nor calls Alice's connector.
  const mallory = new Browser(stack.url);
  const malloryCsrf = csrfOf((await signUp(mallory, MALLORY)).html);
  expect((await mallory.open('/dashboard/services')).html).not.toContain('my-api');
  const malloryToken = await agentToken(mallory, malloryCsrf);
  expect((await api(malloryToken, '/api/v1/services/my-api/items')).status).toBe(404);
  const listed = (await (await api(malloryToken, '/api/v1/connectors')).json()) as {
    connectors: Connector[];
  };
  expect(listed.connectors.some((item) => item.name === 'my-api')).toBe(false);

  const deleted = await alice.post('/dashboard/services/custom/remove', { _csrf: csrf, service: 'my-api' });
  expect(deleted.status).toBe(303);
  expect((await api(token, '/api/v1/services/my-api/items')).status).toBe(404);
}, 90_000);
