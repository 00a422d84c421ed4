/**
 * The MCP TypeScript SDK's client auth (`auth()`), starting from a 401 of the API as an MCP
 * client meets it: protected-resource metadata from WWW-Authenticate, authorization server
 * discovery, dynamic registration, PKCE, the owner's consent, the code exchange.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type { StackProcess } from '@pag/testkit';
import { Browser, signUp, startStackProcess } from '@pag/testkit';
import { consentAs, MemoryProvider } from './support/mcp-oauth.ts';

const OWNER = { email: 'mcp-owner@example.test', password: 'another long pass phrase' };

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

    const { code, callback, consentHtml } = await consentAs(stack.url, OWNER, authorizationUrl);
    expect(consentHtml).toContain('MCP test host');
    expect(callback.searchParams.get('iss')).toBe(stack.url);

    expect(await auth(provider, { serverUrl, resourceMetadataUrl, authorizationCode: code })).toBe(
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
