/**
 * A client known only by its Client ID Metadata Document (its client_id is the URL of the
 * document, served by this test on loopback; the stack allows loopback documents only because
 * the test sets CIMD_ALLOW_LOOPBACK): discovery says documents are supported; openid-client runs
 * the authorization code flow with PKCE through the owner's consent page, which names the
 * document's host and narrows the grant (a scope unticked, limits, a persona); the token works at
 * the gateway with exactly that. A document that does not name itself is refused, saying so.
 */
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { StackProcess } from '@pag/testkit';
import { Browser, csrfOf, signUp, startStackProcess } from '@pag/testkit';
import * as client from 'openid-client';

const OWNER = { email: 'cimd-owner@example.test', password: 'a pass phrase for documents' };
const DOCUMENT_PATH = '/oauth/client-metadata.json';
const IMPOSTOR_PATH = '/oauth/impostor.json';
/** What the document registers: a loopback URI without a port; the client asks with its own. */
const REGISTERED_REDIRECT = 'http://127.0.0.1/callback';
const REDIRECT_URI = 'http://127.0.0.1:47011/callback';

let documents: Server;
let documentsOrigin: string;
let stack: StackProcess;
let owner: Browser;
let ownerCsrf: string;

beforeAll(async () => {
  documents = createServer((req, res) => {
    const id = `${documentsOrigin}${req.url}`;
    const body =
      req.url === DOCUMENT_PATH
        ? {
            client_id: id,
            client_name: 'Document Agent',
            client_uri: 'https://agent.example/',
            redirect_uris: [REGISTERED_REDIRECT],
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none',
          }
        : { client_id: `${documentsOrigin}${DOCUMENT_PATH}`, redirect_uris: [REGISTERED_REDIRECT] };
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
  documentsOrigin = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
  stack = await startStackProcess({ env: { CIMD_ALLOW_LOOPBACK: 'true' } });
  owner = new Browser(stack.url);
  ownerCsrf = csrfOf((await signUp(owner, OWNER)).html);
}, 90_000);
afterAll(async () => {
  await stack?.stop();
  documents?.closeAllConnections();
  await new Promise<void>((resolve) => documents?.close(() => resolve()));
});

const api = (token: string, path: string) =>
  fetch(`${stack.url}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });

describe('a client identified by its metadata document', () => {
  test('discovery says client id metadata documents are supported', async () => {
    const metadata = (await (await fetch(`${stack.url}/.well-known/oauth-authorization-server`)).json()) as {
      client_id_metadata_document_supported?: boolean;
    };
    expect(metadata.client_id_metadata_document_supported).toBe(true);
  });

  test('completes authorization code with PKCE through a narrowed consent, and the token works at the gateway', async () => {
    // A persona of the owner's, to choose on the consent page.
    const created = await owner.post('/dashboard/personas', {
      _csrf: ownerCsrf,
      name: 'Reviewer',
      soul_content: '# Reviewer\n\nRead closely.',
    });
    expect(created.status).toBe(303);
    const personas = await owner.open('/dashboard/personas');
    const personaId = /<tr id="persona-([^"]+)">\s*<td><strong>Reviewer<\/strong>/.exec(personas.html)?.[1];
    expect(personaId).toEqual(expect.any(String));

    const clientId = `${documentsOrigin}${DOCUMENT_PATH}`;
    const config = await client.discovery(new URL(stack.url), clientId, undefined, client.None(), {
      execute: [client.allowInsecureRequests],
      algorithm: 'oauth2',
    });
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'read chat',
      state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      resource: `${stack.url}/api/v1`,
    });

    const browser = new Browser(stack.url);
    const login = await browser.open(url);
    expect(login.html).toContain(
      `<strong>Document Agent</strong> (described by ${new URL(documentsOrigin).host})`,
    );
    const consent = await browser.submit(login, OWNER);
    expect(consent.html).toContain('Document Agent');
    expect(consent.html).toContain(`metadata document at <strong>${new URL(documentsOrigin).host}</strong>`);
    expect(consent.html).toContain('name="scope_read" value="on" checked>');
    expect(consent.html).toContain('name="scope_chat" value="on" checked>');
    expect(consent.html).toContain(`<option value="${personaId}">Reviewer</option>`);
    const callback = await browser.submit(
      consent,
      { scope_chat: '', daily: '25', monthly: '700', persona: personaId as string },
      'confirm',
    );
    expect(`${callback.url.origin}${callback.url.pathname}`).toBe(REDIRECT_URI);

    const tokens = await client.authorizationCodeGrant(config, callback.url, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens.access_token.startsWith('pag_at_')).toBe(true);
    expect(tokens.scope).toBe('read');

    const capabilities = await api(tokens.access_token, '/tokens/me/capabilities');
    expect(capabilities.status).toBe(200);
    const body = (await capabilities.json()) as {
      clientId: string;
      scopes: string[];
      limits: { daily: { limit: number } | null; monthly: { limit: number } | null };
    };
    expect(body.clientId).toBe(clientId);
    expect(body.scopes).toEqual(['read']);
    expect(body.limits.daily?.limit).toBe(25);
    expect(body.limits.monthly?.limit).toBe(700);

    const context = await api(tokens.access_token, '/gateway/context');
    expect(context.status).toBe(200);
    expect(((await context.json()) as { persona: { id: string; name: string } }).persona).toMatchObject({
      id: personaId,
      name: 'Reviewer',
    });

    // The unticked scope is refused at the gateway.
    const chat = await fetch(`${stack.url}/api/v1/brain/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hello' }),
    });
    expect(chat.status).toBe(403);

    // Refresh works for the document client too (it authenticates as `none` with its URL).
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
    expect((await api(refreshed.access_token, '/tokens/me/capabilities')).status).toBe(200);
  });

  test('a document whose client_id is not its own URL is refused with a page saying so', async () => {
    const clientId = `${documentsOrigin}${IMPOSTOR_PATH}`;
    const url = new URL(`${stack.url}/oauth/authorize`);
    url.search = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      scope: 'read',
      code_challenge: client.randomPKCECodeVerifier(),
      code_challenge_method: 'S256',
    }).toString();
    const response = await fetch(url, { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    const page = await response.text();
    expect(page).toContain('<code>invalid_client</code>');
    expect(page).toContain('it must be its own URL exactly');
  });
});
