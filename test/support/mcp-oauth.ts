/**
 * What an MCP host keeps per server for OAuth (the SDK's OAuthClientProvider, in memory) and the
 * owner's part of the flow (login and consent on the gateway's pages), for tests that drive the
 * MCP SDK's client auth against the stack.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { Browser } from '@pag/testkit';

export const MCP_REDIRECT_URI = 'http://127.0.0.1:9/mcp-callback';

/** An in-memory OAuthClientProvider, as an MCP host keeps one per server. */
export class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;

  get redirectUrl() {
    return MCP_REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP test host',
      redirect_uris: [MCP_REDIRECT_URI],
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

/** The owner signs in at the authorization URL and allows the client; the code it was given. */
export async function consentAs(
  baseUrl: string,
  owner: { email: string; password: string },
  authorizationUrl: URL,
): Promise<{ code: string; callback: URL; consentHtml: string }> {
  const browser = new Browser(baseUrl);
  const login = await browser.open(authorizationUrl);
  const consent = await browser.submit(login, { email: owner.email, password: owner.password });
  const callback = await browser.submit(consent, {}, 'confirm');
  const code = callback.url.searchParams.get('code');
  if (code === null) throw new Error(`no code in ${callback.url.href}`);
  return { code, callback: callback.url, consentHtml: consent.html };
}
