/**
 * The MCP TypeScript SDK's client auth (`auth()`), starting from a 401 of the API as an MCP
 * client meets it: protected-resource metadata from WWW-Authenticate, authorization server
 * discovery, dynamic registration, PKCE, the owner's consent, the code exchange.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { StackProcess } from '@pag/testkit';
import { Browser, signUp, startStackProcess } from '@pag/testkit';

const OWNER = { email: 'mcp-owner@example.test', password: 'another long pass phrase' };
const REDIRECT_URI = 'http://127.0.0.1:9/mcp-callback';

/** An in-memory OAuthClientProvider, as an MCP host keeps one per server. */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;

  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP test host',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.client = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

let stack: StackProcess;
beforeAll(async () => {
  stack = await startStackProcess();
  await signUp(new Browser(stack.url), OWNER);
}, 60_000);
afterAll(async () => {
  await stack?.stop();
});

describe('MCP SDK client auth', () => {
  test('completes from a 401 of the API to a working token', async () => {
    const serverUrl = `${stack.url}/api/v1`;
    const unauthorized = await fetch(`${serverUrl}/gateway/context`);
    expect(unauthorized.status).toBe(401);
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(unauthorized);
    expect(resourceMetadataUrl?.href).toBe(`${stack.url}/.well-known/oauth-protected-resource/api/v1`);

    const provider = new MemoryProvider();
    expect(await auth(provider, { serverUrl, resourceMetadataUrl, scope: 'read' })).toBe('REDIRECT');
    const authorizationUrl = provider.authorizationUrl as URL;
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(serverUrl);

    const browser = new Browser(stack.url);
    const login = await browser.open(authorizationUrl);
    const consent = await browser.submit(login, { email: OWNER.email, password: OWNER.password });
    expect(consent.html).toContain('MCP test host');
    const callback = await browser.submit(consent, {}, 'confirm');
    const code = callback.url.searchParams.get('code');
    expect(code).toBeTruthy();
    expect(callback.url.searchParams.get('iss')).toBe(stack.url);

    expect(await auth(provider, { serverUrl, resourceMetadataUrl, authorizationCode: code as string })).toBe(
      'AUTHORIZED',
    );
    const token = provider.saved?.access_token as string;
    expect(token.startsWith('pag_at_')).toBe(true);
    const capabilities = await fetch(`${serverUrl}/tokens/me/capabilities`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(capabilities.status).toBe(200);
    expect(((await capabilities.json()) as { scopes: string[] }).scopes).toEqual(['read']);
  });
});
