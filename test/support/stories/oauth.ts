/**
 * The whole OAuth 2.1 story with a real client library (openid-client): discovery from the base
 * URL, dynamic registration, authorization with PKCE and a resource indicator, the owner's login
 * and consent through the HTML forms, code exchange, an API call, refresh with rotation, reuse
 * detection, revocation, and the API refusing the token; and signing out of the dashboard ending
 * the OAuth session too.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { TOKEN_PATTERN } from '@pag/contracts';
import { signUp } from '@pag/testkit';
import * as client from 'openid-client';
import type { StoryTarget } from './target.ts';

const OWNER = { email: 'oauth-owner@example.test', password: 'correct horse battery staple' };
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

export function oauthStory(target: StoryTarget): void {
  describe('OAuth 2.1 with openid-client', () => {
    let config: client.Configuration;
    beforeAll(async () => {
      await signUp(target.browser(), OWNER);
      config = await client.dynamicClientRegistration(
        new URL(target.url),
        {
          client_name: 'Test agent',
          redirect_uris: [REDIRECT_URI],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        },
        client.None(),
        {
          execute: [client.allowInsecureRequests],
          algorithm: 'oauth2',
          // Discovery, registration and every later request of this configuration.
          [client.customFetch]: target.fetch,
        },
      );
    });

    const api = (path: string, token: string) =>
      target.fetch(`${target.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

    /** Starts the authorization code flow in `browser`: the first page it lands on. */
    async function start(browser: ReturnType<StoryTarget['browser']>, scope: string) {
      const verifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT_URI,
        scope,
        state,
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        resource: `${target.url}/api/v1`,
      });
      return { page: await browser.open(url), verifier, state };
    }

    /** Runs the authorization code flow through the owner's login and consent pages. */
    async function authorize(scope: string) {
      const browser = target.browser();
      const { page: login, verifier, state } = await start(browser, scope);
      expect(login.html).toMatch(/name="email"/);
      const consent = await browser.submit(login, { email: OWNER.email, password: OWNER.password });
      expect(consent.html).toContain('Test agent');
      expect(consent.html).toContain('127.0.0.1');
      const callback = await browser.submit(consent, {}, 'confirm');
      expect(callback.url.origin).toBe('http://127.0.0.1:9');
      return client.authorizationCodeGrant(config, callback.url, {
        pkceCodeVerifier: verifier,
        expectedState: state,
      });
    }

    test('discovery carries the agent_auth block under PUBLIC_URL', async () => {
      const metadata = config.serverMetadata();
      expect(metadata.issuer).toBe(target.url);
      expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
      const agentAuth = (metadata as Record<string, unknown>).agent_auth as Record<string, unknown>;
      expect(agentAuth.identity_endpoint).toBe(`${target.url}/api/v1/agentic/asc/register`);
      expect(agentAuth.revocation_uri).toBe(`${target.url}/dashboard/tokens`);
    });

    test('code, API call, refresh with rotation, reuse revokes the grant', async () => {
      const tokens = await authorize('read chat');
      expect(tokens.refresh_token).toBeDefined();
      // Our shape (docs/adr/0025): a prefix per kind, found by the published scanner pattern.
      expect(tokens.access_token.startsWith('pag_at_')).toBe(true);
      expect(tokens.refresh_token?.startsWith('pag_rt_')).toBe(true);
      for (const token of [tokens.access_token, tokens.refresh_token])
        expect(token).toMatch(new RegExp(`^${TOKEN_PATTERN}$`));

      const capabilities = await api('/api/v1/tokens/me/capabilities', tokens.access_token);
      expect(capabilities.status).toBe(200);
      const body = (await capabilities.json()) as { scopes: string[]; clientId: string };
      expect(body.scopes.sort()).toEqual(['chat', 'read']);
      expect(body.clientId).toBe(config.clientMetadata().client_id);

      const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
      expect(refreshed.refresh_token).toBeDefined();
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
      expect(refreshed.refresh_token?.startsWith('pag_rt_')).toBe(true);
      expect(refreshed.access_token.startsWith('pag_at_')).toBe(true);
      expect((await api('/api/v1/tokens/me/capabilities', refreshed.access_token)).status).toBe(200);

      await expect(client.refreshTokenGrant(config, tokens.refresh_token as string)).rejects.toMatchObject({
        error: 'invalid_grant',
      });
      // Reuse of a rotated refresh token revoked the whole grant: the newer tokens stop working too.
      await expect(client.refreshTokenGrant(config, refreshed.refresh_token as string)).rejects.toMatchObject(
        {
          error: 'invalid_grant',
        },
      );
      expect((await api('/api/v1/tokens/me/capabilities', refreshed.access_token)).status).toBe(401);
    });

    test('a revoked access token is refused by the API at once', async () => {
      const tokens = await authorize('read');
      expect((await api('/api/v1/tokens/me/capabilities', tokens.access_token)).status).toBe(200);
      await client.tokenRevocation(config, tokens.access_token);
      const refused = await api('/api/v1/tokens/me/capabilities', tokens.access_token);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('resource_metadata=');
    });

    test('after signing out of the dashboard, a consented client gets the sign-in page, not a code', async () => {
      const browser = target.browser();
      const first = await start(browser, 'read');
      const consent = await browser.submit(first.page, { email: OWNER.email, password: OWNER.password });
      const callback = await browser.submit(consent, {}, 'confirm');
      await client.authorizationCodeGrant(config, callback.url, {
        pkceCodeVerifier: first.verifier,
        expectedState: first.state,
      });
      // Consented and signed in with the authorization server: the next one is a code at once.
      const again = await start(browser, 'read');
      expect(again.page.url.origin).toBe('http://127.0.0.1:9');
      const tokens = await client.authorizationCodeGrant(config, again.page.url, {
        pkceCodeVerifier: again.verifier,
        expectedState: again.state,
      });
      expect(tokens.access_token).toEqual(expect.any(String));

      const login = await browser.open('/login');
      const dashboard = await browser.submit(login, { email: OWNER.email, password: OWNER.password });
      expect(dashboard.url.pathname).toBe('/dashboard/tokens');
      const out = await browser.submit(dashboard, {}, '/logout');
      expect(out.url.pathname).toBe('/login');

      const afterSignOut = await start(browser, 'read');
      expect(afterSignOut.page.url.pathname).toMatch(/^\/interaction\//);
      expect(afterSignOut.page.html).toMatch(/name="password"/);
    });
  });
}
