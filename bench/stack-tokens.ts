/**
 * Tokens from the embedded stack, obtained as an AI client obtains them (test/oauth-flow.test.ts):
 * an owner signs up; then, per token pair, a client registers itself (RFC 7591) and runs the
 * authorization code flow with PKCE through the owner's login and consent pages, and redeems the
 * code with openid-client. One client per pair gives each pair its own grant, as separate agents
 * have: a broken refresh chain revokes only its own grant.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from '@pag/testkit';
import { Browser, signUp } from '@pag/testkit';
import * as client from 'openid-client';
import type { IntrospectionCredentials, TokenPair } from './oauth-subject.ts';

const OWNER = { email: 'bench-owner@example.test', password: 'correct horse battery staple' };
const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const SCOPE = 'read';

/** The resource server's credentials the stack made for itself (DATA_DIR/secrets.json). */
export async function stackIntrospectionClient(dataDir: string): Promise<IntrospectionCredentials> {
  const secrets = JSON.parse(await readFile(join(dataDir, 'secrets.json'), 'utf8')) as {
    introspectionClientId: string;
    introspectionClientSecret: string;
  };
  return { clientId: secrets.introspectionClientId, clientSecret: secrets.introspectionClientSecret };
}

/** The auth service's internal URL, where resource servers introspect (DATA_DIR/stack.json). */
export async function stackAuthUrl(dataDir: string): Promise<string> {
  const stack = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as { authUrl: string };
  return stack.authUrl;
}

/** Signs the owner up; each call of the result then authorizes `count` new clients. */
export async function stackTokenSource(url: string): Promise<(count: number) => Promise<TokenPair[]>> {
  const browser = new Browser(url);
  await signUp(browser, OWNER);
  let made = 0;
  return async (count) => {
    const pairs: TokenPair[] = [];
    for (let i = 0; i < count; i += 1) {
      made += 1;
      pairs.push(await authorizeNewClient(browser, url, `Bench agent ${made}`));
    }
    return pairs;
  };
}

async function authorizeNewClient(browser: Browser, url: string, clientName: string): Promise<TokenPair> {
  const config = await client.dynamicClientRegistration(
    new URL(url),
    {
      client_name: clientName,
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    client.None(),
    { execute: [client.allowInsecureRequests], algorithm: 'oauth2' },
  );
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const authorizationUrl = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: SCOPE,
    state,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    resource: `${url}/api/v1`,
  });
  const callback = await throughOwnerPages(browser, await browser.open(authorizationUrl));
  const tokens = await client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
  });
  if (tokens.refresh_token === undefined) throw new Error(`no refresh token for ${clientName}`);
  return {
    clientId: config.clientMetadata().client_id,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
  };
}

/**
 * Signs in when asked (the first authorization; later ones reuse the provider's session) and
 * allows on the consent page (each new client is consented to), until the redirect to the client.
 */
async function throughOwnerPages(browser: Browser, first: Page): Promise<URL> {
  const callbackOrigin = new URL(REDIRECT_URI).origin;
  let page = first;
  for (let step = 0; step < 3 && page.url.origin !== callbackOrigin; step += 1) {
    page = /name="password"/.test(page.html)
      ? await browser.submit(page, OWNER, 'login')
      : await browser.submit(page, {}, 'confirm');
  }
  if (page.url.origin !== callbackOrigin)
    throw new Error(`authorization did not reach the client (${page.status} at ${page.url}):\n${page.html}`);
  return page.url;
}
