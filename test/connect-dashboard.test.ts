/**
 * The owner connects a service on /dashboard/services, against the stack as a user starts it,
 * and an agent calls it through the gateway. The service is a stand-in provider on loopback (a
 * second oidc-provider as its authorization server and a small API), configured as the
 * deployment's own OAuth connector (CONNECTOR_CUSTOM, with CONNECTOR_ALLOW_LOOPBACK for the test).
 * The browser is testkit's cookie-keeping client (the pages need no script): it posts Connect,
 * follows the redirect to the provider, signs in and consents there, comes back to the callback.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Connector, ServiceList } from '@pag/contracts';
import type { StackProcess } from '@pag/testkit';
import { Browser, csrfOf, signUp, startStackProcess } from '@pag/testkit';
import { StandInProvider } from '../services/proxy/test/support/stand-in-provider.ts';

const ALICE = { email: 'alice@connect.test', password: 'correct horse battery staple' };
const MALLORY = { email: 'mallory@connect.test', password: 'another horse battery staple' };

let provider: StandInProvider;
let stack: StackProcess;
let alice: Browser;
let csrf: string;

beforeAll(async () => {
  provider = await StandInProvider.start();
  stack = await startStackProcess({
    env: { CONNECTOR_CUSTOM: JSON.stringify([provider.connector]), CONNECTOR_ALLOW_LOOPBACK: 'true' },
  });
  provider.withRedirectUri(`${stack.url}/dashboard/services/callback`);
  alice = new Browser(stack.url);
  csrf = csrfOf((await signUp(alice, ALICE)).html);
}, 90_000);
afterAll(async () => {
  await stack?.stop();
  await provider?.[Symbol.asyncDispose]();
});

async function api(token: string, path: string): Promise<Response> {
  return fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
}

test('connect on the dashboard, call through the gateway, disconnect', async () => {
  const listed = await alice.open('/dashboard/services');
  expect(listed.status).toBe(200);
  expect(listed.html).toContain('Stand-in');
  expect(listed.html).toMatch(/data-connection="not_connected"/);
  // Browsers check form-action on the redirect after the Connect form: the provider is admitted.
  expect(listed.headers.get('content-security-policy')).toContain(`form-action 'self' ${provider.url}`);

  const started = await alice.post('/dashboard/services/connect', { _csrf: csrf, service: 'stand-in' });
  expect(started.status).toBe(303);
  const authorizationUrl = new URL(started.headers.get('location') ?? '');
  expect(authorizationUrl.origin).toBe(provider.url);
  expect(authorizationUrl.searchParams.get('redirect_uri')).toBe(`${stack.url}/dashboard/services/callback`);

  const callback = await provider.authorize(
    authorizationUrl.href,
    `${stack.url}/dashboard/services/callback`,
  );
  // Someone else's session cannot finish this owner's flow (and the attempt is used up).
  const mallory = new Browser(stack.url);
  await signUp(mallory, MALLORY);
  const stolen = await mallory.open(callback);
  expect(stolen.status).toBe(400);
  expect(stolen.html).toContain('another session');

  // Again, for real, in Alice's session.
  const again = await alice.post('/dashboard/services/connect', { _csrf: csrf, service: 'stand-in' });
  const back = await provider.authorize(
    again.headers.get('location') ?? '',
    `${stack.url}/dashboard/services/callback`,
  );
  const connected = await alice.open(back);
  expect(connected.status).toBe(200);
  expect(connected.url.pathname).toBe('/dashboard/services');
  expect(connected.html).toContain('Stand-in is connected.');
  expect(connected.html).toMatch(/data-connection="healthy"/);

  const created = await alice.post('/dashboard/tokens', { _csrf: csrf, name: 'reader', 'scope-read': 'on' });
  expect(created.status).toBe(201);
  const token = /<code id="new-token">([^<]+)<\/code>/.exec(await created.text())?.[1] ?? '';
  const call = await api(token, '/api/v1/services/stand-in/items');
  expect(call.status).toBe(200);
  expect(await call.json()).toEqual({ items: ['one', 'two'] });
  const services = (await (await api(token, '/api/v1/services')).json()) as ServiceList;
  expect(services.services).toEqual([expect.objectContaining({ name: 'stand-in', health: 'healthy' })]);
  const { connectors } = (await (await api(token, '/api/v1/connectors')).json()) as {
    connectors: Connector[];
  };
  expect(connectors.find((item) => item.name === 'stand-in')?.connection).toBe('healthy');
  expect(connectors.find((item) => item.name === 'github')).toMatchObject({
    connection: 'not_connected',
    canConnect: false,
  });

  const removed = await alice.post('/dashboard/services/disconnect', { _csrf: csrf, service: 'stand-in' });
  expect(removed.status).toBe(303);
  expect(removed.headers.get('location')).toContain('done=revoked');
  expect((await api(token, '/api/v1/services/stand-in/items')).status).toBe(409);
}, 90_000);

test('an API-key connector takes its key in a form; the key never comes back', async () => {
  const KEY = 'figd_dashboard-form-key-0123456789';
  const saved = await alice.post('/dashboard/services/api-key', { _csrf: csrf, service: 'figma', key: KEY });
  expect(saved.status).toBe(303);
  const page = await alice.open(saved.headers.get('location') ?? '');
  expect(page.html).toContain('Figma is connected.');
  expect(page.html).not.toContain(KEY);
  // An OAuth connector refuses a key, and says how it connects.
  const refused = await alice.post('/dashboard/services/api-key', {
    _csrf: csrf,
    service: 'stand-in',
    key: KEY,
  });
  expect(refused.status).toBe(400);
  expect(await refused.text()).toContain('connected through OAuth');
}, 30_000);
