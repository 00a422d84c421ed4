/**
 * A third-party provider on loopback for the connect and refresh tests: a real OAuth 2.0
 * authorization server (a second oidc-provider instance: authorization code with PKCE S256,
 * client_secret_basic, refresh tokens that rotate, RFC 7009 revocation, its development login and
 * consent pages) and a small resource API under /api that accepts only access tokens the server
 * issued and has not expired or revoked.
 *
 * `refreshes` counts refresh_token grants the server granted; `issuedTokens` holds every access
 * and refresh token its token endpoint answered (for the scans that none is stored in the clear);
 * `refuseRefresh` makes the token
 * endpoint answer 400 invalid_grant to every request (as a provider does for a revoked grant).
 * `authorize(url)` plays the owner's browser from the authorization URL to the redirect back,
 * with a cookie jar, and answers the callback URL (code and state).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export const STAND_IN_CLIENT = { clientId: 'pag-gateway', clientSecret: 'stand-in-client-secret-0123456789' };

export class StandInProvider implements AsyncDisposable {
  refreshes = 0;
  refuseRefresh = false;
  /** Every access and refresh token the token endpoint answered, in order. */
  readonly issuedTokens: string[] = [];
  readonly apiCalls: { path: string; authorized: boolean }[] = [];
  /** Access tokens the API accepted, newest last. */
  readonly acceptedTokens: string[] = [];
  readonly #server = createServer((req, res) => this.#route(req, res));
  #provider!: Provider;
  url = '';

  /** Listening; `redirectUri` (or a later withRedirectUri) registers the gateway's callback. */
  static async start(redirectUri?: string): Promise<StandInProvider> {
    const standIn = new StandInProvider();
    await new Promise<void>((resolve) => standIn.#server.listen(0, '127.0.0.1', resolve));
    const { port } = standIn.#server.address() as AddressInfo;
    standIn.url = `http://127.0.0.1:${port}`;
    if (redirectUri !== undefined) standIn.withRedirectUri(redirectUri);
    return standIn;
  }

  /** The authorization server, with the gateway's callback as its client's one redirect URI. */
  withRedirectUri(redirectUri: string): this {
    this.#provider = new Provider(this.url, {
      clients: [
        {
          client_id: STAND_IN_CLIENT.clientId,
          client_secret: STAND_IN_CLIENT.clientSecret,
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
      pkce: { required: () => true },
      features: {
        devInteractions: { enabled: true },
        revocation: { enabled: true, allowedPolicy: async () => true },
      },
      // Every code of this client yields a refresh token, and each refresh answers a new one.
      issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
      rotateRefreshToken: true,
      findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
      cookies: { keys: ['stand-in-provider-cookie-key'] },
      ttl: {
        AccessToken: 3600,
        RefreshToken: 86_400,
        Interaction: 600,
        Session: 3600,
        Grant: 86_400,
        IdToken: 3600,
      },
    });
    this.#provider.on('grant.success', (ctx) => {
      if (ctx.oidc.params?.grant_type === 'refresh_token') this.refreshes += 1;
      // The grant's handler has set the answer by now (oidc-provider's lib/actions/token.js).
      const answer = ctx.body as { access_token?: unknown; refresh_token?: unknown };
      for (const token of [answer.access_token, answer.refresh_token]) {
        if (typeof token === 'string') this.issuedTokens.push(token);
      }
    });
    return this;
  }

  get connector() {
    return {
      name: 'stand-in',
      displayName: 'Stand-in',
      auth: {
        type: 'oauth2',
        authorizationUrl: `${this.url}/auth`,
        tokenUrl: `${this.url}/token`,
        clientAuth: 'client_secret_basic',
        pkce: true,
        defaultScopes: ['openid'],
        refreshTokens: 'rotating',
        revocation: { url: `${this.url}/token/revocation`, style: 'rfc7009' },
      },
      api: {
        baseUrl: `${this.url}/api`,
        allowedHosts: [new URL(this.url).host],
        credential: { type: 'bearer' },
      },
      resources: ['items'],
      access: { style: 'rest', readAccess: 'GET reads items.', overrideParameters: ['_method'] },
      client: STAND_IN_CLIENT,
    };
  }

  /** Whether the server still knows this access token (not revoked, not expired). */
  async accessTokenValid(token: string): Promise<boolean> {
    return (await this.#provider.AccessToken.find(token)) !== undefined;
  }

  /** Revokes an access token at the server (as the owner would at the provider): the API answers 401. */
  async revokeAccessToken(token: string): Promise<void> {
    await (await this.#provider.AccessToken.find(token))?.destroy();
  }

  /** The owner's browser: from the authorization URL through login and consent to the redirect back. */
  async authorize(authorizationUrl: string, redirectUri: string): Promise<URL> {
    const jar = new Map<string, string>();
    let next = new URL(authorizationUrl);
    let form: Record<string, string> | null = null;
    for (let step = 0; step < 12; step += 1) {
      const response = await fetch(next, {
        method: form === null ? 'GET' : 'POST',
        redirect: 'manual',
        headers: {
          cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
          ...(form === null ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
        },
        ...(form === null ? {} : { body: new URLSearchParams(form) }),
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair = ''] = line.split(';');
        const at = pair.indexOf('=');
        jar.set(pair.slice(0, at), pair.slice(at + 1));
      }
      const location = response.headers.get('location');
      if (location !== null) {
        const target = new URL(location, next);
        if (target.href.startsWith(redirectUri)) return target;
        next = target;
        form = null;
        continue;
      }
      const page = await response.text();
      const action = page.match(/<form[^>]*action="([^"]+)"/)?.[1];
      const prompt = page.match(/name="prompt" value="(\w+)"/)?.[1];
      if (action === undefined || prompt === undefined) {
        throw new Error(`stand-in provider: no form at ${next.pathname} (${response.status})`);
      }
      next = new URL(action.replaceAll('&amp;', '&'), next);
      form = prompt === 'login' ? { prompt, login: 'owner-at-provider', password: 'any' } : { prompt };
    }
    throw new Error('stand-in provider: the authorization did not come back');
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path.startsWith('/api/')) {
      const token = req.headers.authorization?.match(/^Bearer (.+)$/)?.[1];
      const authorized = token !== undefined && (await this.accessTokenValid(token));
      this.apiCalls.push({ path, authorized });
      if (authorized && token !== undefined && this.acceptedTokens.at(-1) !== token)
        this.acceptedTokens.push(token);
      res.writeHead(authorized ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(authorized ? { items: ['one', 'two'] } : { error: 'invalid_token' }));
      return;
    }
    if (path === '/token' && req.method === 'POST' && this.refuseRefresh) {
      req.resume();
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'invalid_grant', error_description: 'grant revoked' }));
      return;
    }
    this.#provider.callback()(req, res);
  }
}
